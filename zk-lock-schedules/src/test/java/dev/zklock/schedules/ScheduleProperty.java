package dev.zklock.schedules;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.schedules.ScheduleShrinker.Check;
import dev.zklock.schedules.ScheduleShrinker.Result;

/**
 * Runs schedules until one fails, and then shrinks it: the tries of a run seed, each
 * schedule drawn from a seed of its own that the run seed gives, so that the seed a
 * failure prints, passed as {@value #SEED_PROPERTY}, draws that one schedule again
 * (its timing is new each run). With that property set, a run draws that schedule
 * only.
 */
final class ScheduleProperty {

	private static final Logger logger = LoggerFactory.getLogger(ScheduleProperty.class);

	/** The system property of one schedule's seed: set, a run draws that schedule only. */
	static final String SEED_PROPERTY = "zk-lock.schedules.seed";

	private final Gen<Schedule> schedules;

	private final Duration shrinking;

	/**
	 * A property over the given schedules.
	 * @param schedules how schedules are drawn
	 * @param shrinking how long a failure may shrink
	 */
	ScheduleProperty(Gen<Schedule> schedules, Duration shrinking) {
		this.schedules = schedules;
		this.shrinking = shrinking;
	}

	/**
	 * The schedule a seed draws.
	 * @param seed a schedule's seed, as a failure prints it
	 * @return the schedule
	 */
	Schedule generate(long seed) {
		return this.schedules.next(new SplittableRandom(seed));
	}

	/**
	 * The seeds of a run's schedules, one per try.
	 * @param runSeed the run's seed
	 * @param tries how many schedules
	 * @return their seeds
	 */
	static List<Long> seeds(long runSeed, int tries) {
		SplittableRandom random = new SplittableRandom(runSeed);
		List<Long> seeds = new ArrayList<>(tries);
		for (int i = 0; i < tries; i++) {
			seeds.add(random.nextLong());
		}
		return seeds;
	}

	/**
	 * Runs a run seed's schedules, or the one of {@value #SEED_PROPERTY} if set; at
	 * the first that fails, shrinks it and fails.
	 * @param runSeed the run's seed
	 * @param tries how many schedules
	 * @param check runs a schedule
	 * @throws AssertionError with the seed to pass, the shrunk schedule and how it failed
	 */
	void check(long runSeed, int tries, Check check) {
		check(runSeed, tries, Long.getLong(SEED_PROPERTY), check);
	}

	/**
	 * As above, with the seed of the one schedule to draw given.
	 * @param runSeed the run's seed
	 * @param tries how many schedules
	 * @param replay the seed of the one schedule to draw instead, if any
	 * @param check runs a schedule
	 */
	void check(long runSeed, int tries, @Nullable Long replay, Check check) {
		List<Long> seeds = (replay != null) ? List.of(replay) : seeds(runSeed, tries);
		for (int i = 0; i < seeds.size(); i++) {
			long seed = seeds.get(i);
			Schedule schedule = generate(seed);
			String where = (replay != null) ? "the schedule of -D" + SEED_PROPERTY + "=" + seed
					: "schedule " + (i + 1) + " of " + tries + " of run seed " + runSeed;
			logger.info("SCHEDULE {}: seed {}", where, seed);
			String failure = ScheduleShrinker.failureOf(check, schedule);
			if (failure != null) {
				Result shrunk = new ScheduleShrinker(check, this.shrinking).shrink(schedule, failure);
				throw new AssertionError(report(where, seed, schedule, shrunk));
			}
		}
	}

	static String report(String where, long seed, Schedule original, Result shrunk) {
		return where + " failed; to draw it again, pass -D" + SEED_PROPERTY + "=" + seed + "\nshrunk in "
				+ shrunk.candidates() + " runs" + (shrunk.timedOut() ? " (the shrinking bound ran out)" : "")
				+ " from " + original.steps().size() + " steps and " + original.faults().size() + " faults to "
				+ shrunk.schedule().steps().size() + " steps and " + shrunk.schedule().faults().size()
				+ " faults:\n" + shrunk.schedule() + "\n" + shrunk.failure() + "\nas drawn:\n" + original;
	}

}
