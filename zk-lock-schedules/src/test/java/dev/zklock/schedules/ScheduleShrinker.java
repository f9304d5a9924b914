package dev.zklock.schedules;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.schedules.Schedule.Acquire;
import dev.zklock.schedules.Schedule.FaultStep;
import dev.zklock.schedules.Schedule.Step;

/**
 * Shrinks a failing schedule by delta debugging: it removes faults, then steps, in
 * chunks that halve until single ones, then shortens holds and timeouts, and keeps
 * each change after which the schedule still fails; it goes round again while a round
 * changed anything. The steps that remain keep their order. Every candidate runs as a
 * schedule does (on the real server, in the tests), so each costs seconds: after
 * {@code bound} it stops and gives the smallest failure so far.
 */
final class ScheduleShrinker {

	private static final Logger logger = LoggerFactory.getLogger(ScheduleShrinker.class);

	/** Timeouts shrink no lower than this: a timeout of 0 is a single try, another operation. */
	static final long SHORTEST_TIMEOUT_MILLIS = 50;

	private final Check check;

	private final Duration bound;

	private final LongSupplier nanoTime;

	private long deadline;

	private int candidates;

	private boolean timedOut;

	private String failure = "";

	/**
	 * A shrinker on the wall clock.
	 * @param check whether a candidate still fails
	 * @param bound how long to shrink at most
	 */
	ScheduleShrinker(Check check, Duration bound) {
		this(check, bound, System::nanoTime);
	}

	/**
	 * A shrinker on the given clock: the tests move it without waiting.
	 * @param check whether a candidate still fails
	 * @param bound how long to shrink at most
	 * @param nanoTime the clock, in nanoseconds
	 */
	ScheduleShrinker(Check check, Duration bound, LongSupplier nanoTime) {
		this.check = check;
		this.bound = bound;
		this.nanoTime = nanoTime;
	}

	/**
	 * Shrinks a schedule known to fail.
	 * @param failing the schedule
	 * @param failure how it failed
	 * @return the smallest failing schedule found, and how it failed
	 */
	synchronized Result shrink(Schedule failing, String failure) {
		this.deadline = this.nanoTime.getAsLong() + this.bound.toNanos();
		this.candidates = 0;
		this.timedOut = false;
		this.failure = failure;
		Schedule smallest = failing;
		boolean changed = true;
		while (changed && !this.timedOut) {
			List<Step> steps = smallest.steps();
			List<FaultStep> faults = removeWhileFailing(smallest.faults(), (fewer) -> new Schedule(steps, fewer));
			List<Step> fewerSteps = removeWhileFailing(steps, (fewer) -> new Schedule(fewer, faults));
			Schedule shortened = shortenWhileFailing(new Schedule(fewerSteps, faults));
			changed = !shortened.equals(smallest);
			smallest = shortened;
		}
		logger.info("SHRINK done: {} candidates, {}", this.candidates, this.timedOut ? "bound reached" : "minimal");
		return new Result(smallest, this.failure, this.candidates, this.timedOut);
	}

	// delta debugging over one list: drop chunks of size/n, n doubling up to single items, keeping any drop that
	// still fails
	private <T> List<T> removeWhileFailing(List<T> items, Function<List<T>, Schedule> build) {
		List<T> kept = items;
		int parts = 2;
		while (!kept.isEmpty()) {
			int chunk = (kept.size() + parts - 1) / parts;
			boolean reduced = false;
			for (int from = 0; from < kept.size() && !reduced; from += chunk) {
				List<T> candidate = new ArrayList<>(kept.subList(0, from));
				candidate.addAll(kept.subList(Math.min(kept.size(), from + chunk), kept.size()));
				if (this.timedOut || !fails(build.apply(List.copyOf(candidate)))) {
					continue;
				}
				kept = List.copyOf(candidate);
				parts = Math.max(parts - 1, 2);
				reduced = true;
			}
			if (this.timedOut || !reduced && chunk == 1) {
				return kept;
			}
			if (!reduced) {
				parts = Math.min(parts * 2, kept.size());
			}
		}
		return kept;
	}

	// each acquisition's hold, then its timeout, as short as still fails: to none (or half) for a hold, halved for a
	// timeout
	private Schedule shortenWhileFailing(Schedule schedule) {
		List<Function<Acquire, @Nullable Acquire>> shorteners = List.of(ScheduleShrinker::noHold,
				ScheduleShrinker::halfHold, ScheduleShrinker::halfTimeout);
		Schedule current = schedule;
		for (int i = 0; i < current.steps().size(); i++) {
			for (Function<Acquire, @Nullable Acquire> shorter : shorteners) {
				while (!this.timedOut && current.steps().get(i).op() instanceof Acquire now) {
					Acquire acquire = shorter.apply(now);
					if (acquire == null) {
						break;
					}
					Schedule candidate = withOp(current, i, acquire);
					if (!fails(candidate)) {
						break;
					}
					current = candidate;
				}
			}
		}
		return current;
	}

	private static @Nullable Acquire noHold(Acquire acquire) {
		return (acquire.holdMillis() > 0) ? withTimes(acquire, acquire.timeoutMillis(), 0) : null;
	}

	private static @Nullable Acquire halfHold(Acquire acquire) {
		return (acquire.holdMillis() > 1) ? withTimes(acquire, acquire.timeoutMillis(), acquire.holdMillis() / 2)
				: null;
	}

	private static @Nullable Acquire halfTimeout(Acquire acquire) {
		long half = acquire.timeoutMillis() / 2;
		return (half >= SHORTEST_TIMEOUT_MILLIS) ? withTimes(acquire, half, acquire.holdMillis()) : null;
	}

	private static Acquire withTimes(Acquire acquire, long timeoutMillis, long holdMillis) {
		return new Acquire(acquire.family(), acquire.keys(), acquire.mode(), acquire.async(), timeoutMillis,
				holdMillis, acquire.nesting(), acquire.minHoldMillis(), acquire.maxHoldMillis(),
				acquire.giveUpMillis(), acquire.localHandoff());
	}

	private static Schedule withOp(Schedule schedule, int index, Acquire acquire) {
		List<Step> steps = new ArrayList<>(schedule.steps());
		Step step = steps.get(index);
		steps.set(index, new Step(step.client(), step.worker(), step.atMillis(), acquire));
		return new Schedule(List.copyOf(steps), schedule.faults());
	}

	private boolean fails(Schedule candidate) {
		if (this.nanoTime.getAsLong() - this.deadline >= 0) {
			this.timedOut = true;
			return false;
		}
		this.candidates++;
		String outcome = failureOf(this.check, candidate);
		logger.info("SHRINK candidate {}: {} steps, {} faults: {}", this.candidates, candidate.steps().size(),
				candidate.faults().size(), (outcome != null) ? "fails" : "passes");
		if (outcome != null) {
			this.failure = outcome;
		}
		return outcome != null;
	}

	/**
	 * How a schedule fails: as the check says, or, if the check throws, with the
	 * exception, as any test does.
	 * @param check runs the schedule
	 * @param schedule the schedule
	 * @return how it failed, or {@code null} if it kept every promise
	 */
	static @Nullable String failureOf(Check check, Schedule schedule) {
		try {
			return check.failure(schedule);
		}
		catch (Exception ex) {
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			StringWriter trace = new StringWriter();
			ex.printStackTrace(new PrintWriter(trace));
			return "threw " + trace;
		}
	}

	/** Runs a schedule and tells whether, and how, it fails. */
	@FunctionalInterface
	interface Check {

		/**
		 * Runs a schedule.
		 * @param schedule the schedule
		 * @return how it failed, or {@code null} if it kept every promise
		 * @throws Exception if it could not run
		 */
		@Nullable String failure(Schedule schedule) throws Exception;

	}

	/**
	 * The outcome of shrinking.
	 * @param schedule the smallest failing schedule found
	 * @param failure how it failed
	 * @param candidates how many candidates ran
	 * @param timedOut whether the bound stopped it before it was done
	 */
	record Result(Schedule schedule, String failure, int candidates, boolean timedOut) {
	}

}
