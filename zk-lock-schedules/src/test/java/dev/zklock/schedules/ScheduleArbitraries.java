package dev.zklock.schedules;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.Schedule.Acquire;
import dev.zklock.schedules.Schedule.DeleteNode;
import dev.zklock.schedules.Schedule.Family;
import dev.zklock.schedules.Schedule.FaultKind;
import dev.zklock.schedules.Schedule.FaultStep;
import dev.zklock.schedules.Schedule.Nesting;
import dev.zklock.schedules.Schedule.Op;
import dev.zklock.schedules.Schedule.Revoke;
import dev.zklock.schedules.Schedule.Step;

/**
 * Generates schedules: a dozen or so operations of three clients over two keys of
 * three lock names, in every mode, with collections of keys, blocking and async
 * callers, re-entry, READ inside WRITE, downgrades, single tries and short timeouts,
 * interrupts and cancels, {@code minHold} and {@code maxHold}, revokes and plain
 * deletions of a holder's node (now and then one aimed at an acquisition); and up to
 * three faults, most aimed at an operation. Most schedules keep to one lock name, so
 * that its holders and waiters meet. A share of them is built around a contended key:
 * a long hold, a waiter of another client queued behind it, and a session fault aimed
 * into that wait, at the waiter or at the holder (see {@link #contended(List)}), with
 * random operations and faults around it. Everything shrinks towards fewer, simpler
 * steps and fewer faults.
 */
final class ScheduleArbitraries {

	/** The share of schedules built around a contended key, in percent. */
	static final int CONTENDED_PERCENT = 30;

	/** The share of schedules built around a hot key of local hand-off, in percent. */
	static final int HOT_PERCENT = 25;

	/** Faults that end or cut a client's session, or its connection, as a waiter or holder sees it. */
	static final Set<FaultKind> SESSION_FAULTS = EnumSet.of(FaultKind.EXPIRE, FaultKind.EXPIRE_ON_CLIENT,
			FaultKind.DROP, FaultKind.SILENT_AFTER_CREATE, FaultKind.BLACKHOLE_PAST_SESSION);

	private ScheduleArbitraries() {
	}

	/**
	 * Mixed schedules, and a share built around a contended key.
	 */
	static Arbitrary<Schedule> schedules() {
		return schedules(FaultKind.inJvm());
	}

	/**
	 * Schedules as above, with faults of the given kinds: the soak adds those of
	 * processes, the ensemble and the firewall.
	 */
	static Arbitrary<Schedule> schedules(List<FaultKind> kinds) {
		return Arbitraries.frequencyOf(Tuple.of(100 - CONTENDED_PERCENT - HOT_PERCENT, mixed(kinds)),
				Tuple.of(CONTENDED_PERCENT, contended(kinds)), Tuple.of(HOT_PERCENT, HotKeys.schedules(kinds)));
	}

	/**
	 * Schedules over every lock name, or, in most, over one name only: its holders and
	 * waiters then meet far more often.
	 */
	static Arbitrary<Schedule> mixed(List<FaultKind> kinds) {
		Arbitrary<Family> focus = Arbitraries.of(Family.class).injectNull(0.4);
		return focus.flatMap((family) -> step(family).list()
			.ofMinSize(4)
			.ofMaxSize(16)
			.flatMap((steps) -> Combinators.combine(aimedDeletion(steps), fault(steps, kinds).list().ofMaxSize(3))
				.as((deletion, faults) -> new Schedule(withDeletion(steps, deletion), faults))));
	}

	/**
	 * Schedules around a contended key: its steps first, so that each is the first of
	 * its worker and starts on time, then random operations (most on the same lock
	 * name), the aimed fault, and up to two random ones. Half aim the fault at a waiter
	 * queued behind another client's long hold: with its session ended on the server or
	 * on the client only (its old node still listed, see {@code isCurrentSession}), or
	 * its connection dropped or cut, while it waits; the holder releases before the
	 * server ends an old session, and a third client asks after the fault: the waiter,
	 * back in the queue by then, must come first. The other half aim an expiry, mostly,
	 * at a WRITE holder that takes a READ inside its WRITE (nested or to downgrade)
	 * halfway through its hold, while another client waits for WRITE: the READ comes
	 * after the WRITE is lost and, likely, after the waiter's grant.
	 */
	static Arbitrary<Schedule> contended(List<FaultKind> kinds) {
		return Arbitraries.oneOf(queuedWaiter(), lostWriteThenRead())
			.flatMap((core) -> Arbitraries.just(core.family())
				.injectNull(0.3)
				.flatMap((focus) -> step(focus).list()
					.ofMinSize(2)
					.ofMaxSize(16 - core.steps().size())
					.flatMap((rest) -> {
						List<Step> steps = new ArrayList<>(core.steps());
						steps.addAll(rest);
						return fault(steps, kinds).list().ofMaxSize(2).map((faults) -> {
							List<FaultStep> all = new ArrayList<>();
							all.add(core.fault());
							all.addAll(faults);
							return new Schedule(List.copyOf(steps), List.copyOf(all));
						});
					})));
	}

	/**
	 * The steps of a contended key and the fault aimed into its wait.
	 * @param family the lock name
	 * @param steps the holders, the waiter, and maybe a later waiter
	 * @param fault the aimed fault
	 */
	private record Contention(Family family, List<Step> steps, FaultStep fault) {
	}

	/** Whose steps a contention is: a holder's client, a waiter's, and the third. */
	private record Cast(int holder, int waiter, int third, int holderWorker, int waiterWorker) {

		static Arbitrary<Cast> any() {
			return Combinators
				.combine(Arbitraries.integers().between(0, Schedule.CLIENTS - 1), Arbitraries.integers().between(1, 2),
						Arbitraries.integers().between(0, Schedule.WORKERS - 1),
						Arbitraries.integers().between(0, Schedule.WORKERS - 1))
				.as((holder, shift, holderWorker, waiterWorker) -> new Cast(holder, (holder + shift) % 3,
						(holder + 3 - shift) % 3, holderWorker, waiterWorker));
		}

	}

	/** When the holder starts, how long it holds, and how soon after it the waiter asks. */
	private record Timing(long holderAt, long holdMillis, long waiterDelay) {
	}

	// a waiter queued behind a long hold (two, for a semaphore), a session fault of the waiter's client while it waits
	private static Arbitrary<Contention> queuedWaiter() {
		Arbitrary<Family> family = Arbitraries.frequency(Tuple.of(3, Family.READ_WRITE), Tuple.of(2, Family.MUTEX),
				Tuple.of(1, Family.SEMAPHORE));
		Arbitrary<Timing> timing = Combinators
			.combine(startOfContention(), Arbitraries.of(800L, 1_200L, 1_500L), Arbitraries.of(50L, 100L, 200L))
			.as(Timing::new);
		Arbitrary<FaultKind> kind = Arbitraries.frequency(Tuple.of(4, FaultKind.EXPIRE_ON_CLIENT),
				Tuple.of(3, FaultKind.EXPIRE), Tuple.of(1, FaultKind.DROP), Tuple.of(1, FaultKind.SILENT_AFTER_CREATE),
				Tuple.of(1, FaultKind.BLACKHOLE_PAST_SESSION));
		return family.flatMap((lock) -> Combinators
			.combine(Cast.any(), timing, contendedModes(lock), holderNesting(), waiter(List.of(300L, 600L, 1_000L)),
					Arbitraries.of("a", "b"), kind, Arbitraries.of(50L, 100L, 200L, 400L))
			.as((cast, time, modes, nesting, waiterOp, key, faultKind, intoWait) -> {
				List<String> keys = List.of(key);
				Nesting holderNesting = (modes.get1() == LockMode.WRITE) ? nesting : Nesting.NONE;
				List<Step> steps = new ArrayList<>();
				steps.add(new Step(cast.holder(), cast.holderWorker(), time.holderAt(), new Acquire(lock, keys,
						modes.get1(), false, 2_500, time.holdMillis(), holderNesting, 0, 0, 0)));
				if (lock == Family.SEMAPHORE) {
					// a semaphore's second permit goes to the third client
					steps.add(new Step(cast.third(), 0, time.holderAt(), new Acquire(lock, keys, modes.get1(), false,
							2_500, time.holdMillis(), Nesting.NONE, 0, 0, 0)));
				}
				long waiterAt = time.holderAt() + time.waiterDelay();
				steps.add(new Step(cast.waiter(), cast.waiterWorker(), waiterAt,
						waiterOp.apply(lock, keys, modes.get2())));
				if (lock != Family.SEMAPHORE) {
					// a later waiter, which a waiter whose session ended must still be ahead of once it joined again
					steps.add(new Step(cast.third(), 0, waiterAt + intoWait + 400, new Acquire(lock, keys, modes.get2(),
							false, 2_500, 100, Nesting.NONE, 0, 0, 0)));
				}
				return new Contention(lock, steps, new FaultStep(faultKind, cast.waiter(), waiterAt + intoWait));
			}));
	}

	// a WRITE holder with a READ inside (nested or to downgrade), another client's WRITE waiter, an expiry of the holder
	// in the first half of its hold, after the waiter has queued
	private static Arbitrary<Contention> lostWriteThenRead() {
		Arbitrary<Timing> timing = Combinators
			.combine(startOfContention(), Arbitraries.of(2_000L, 2_500L, 1_500L), Arbitraries.of(50L, 100L, 200L))
			.as(Timing::new);
		Arbitrary<FaultKind> kind = Arbitraries.frequency(Tuple.of(7, FaultKind.EXPIRE),
				Tuple.of(2, FaultKind.EXPIRE_ON_CLIENT), Tuple.of(1, FaultKind.DROP),
				Tuple.of(1, FaultKind.BLACKHOLE_PAST_SESSION));
		return Combinators
			.combine(Cast.any(), timing, Arbitraries.of(Nesting.READ_IN_WRITE, Nesting.DOWNGRADE),
					waiter(LONG_WAITER_HOLDS), Arbitraries.of("a", "b"), kind, Arbitraries.of(50L, 100L, 200L))
			.as((cast, time, nesting, waiterOp, key, faultKind, intoWait) -> {
				List<String> keys = List.of(key);
				long waiterAt = time.holderAt() + time.waiterDelay();
				List<Step> steps = List.of(
						new Step(cast.holder(), cast.holderWorker(), time.holderAt(),
								new Acquire(Family.READ_WRITE, keys, LockMode.WRITE, false, 2_500, time.holdMillis(),
										nesting, 0, 0, 0)),
						new Step(cast.waiter(), cast.waiterWorker(), waiterAt,
								waiterOp.apply(Family.READ_WRITE, keys, LockMode.WRITE)));
				return new Contention(Family.READ_WRITE, steps,
						new FaultStep(faultKind, cast.holder(), waiterAt + intoWait));
			});
	}

	/** A waiter's acquisition, given its lock, keys and mode: long enough a timeout to outwait the holder. */
	private interface WaiterOp {

		Acquire apply(Family family, List<String> keys, LockMode mode);

	}

	// a WRITE waiter granted as the holder's session ends holds until the holder, which saw the loss with its connection
	// down, has a new session and takes its READ: up to two seconds later (ZooKeeper reconnects after a random
	// delay of up to a second)
	private static final List<Long> LONG_WAITER_HOLDS = List.of(2_500L, 3_000L);

	private static Arbitrary<WaiterOp> waiter(List<Long> holds) {
		return Combinators
			.combine(Arbitraries.frequency(Tuple.of(7, false), Tuple.of(3, true)), Arbitraries.of(holds))
			.as((async, hold) -> (family, keys, mode) -> new Acquire(family, keys, mode, async, 2_500, hold,
					Nesting.NONE, 0, 0, 0));
	}

	// the holder's mode and the waiter's, which conflict (a semaphore's waiter is third behind two holders)
	private static Arbitrary<Tuple2<LockMode, LockMode>> contendedModes(Family family) {
		return switch (family) {
			case MUTEX -> Arbitraries.just(Tuple.of(LockMode.MUTEX, LockMode.MUTEX));
			case SEMAPHORE -> Arbitraries.just(Tuple.of(LockMode.SEMAPHORE, LockMode.SEMAPHORE));
			case READ_WRITE -> Arbitraries.of(Tuple.of(LockMode.WRITE, LockMode.WRITE),
					Tuple.of(LockMode.WRITE, LockMode.READ), Tuple.of(LockMode.READ, LockMode.WRITE));
		};
	}

	private static Arbitrary<Nesting> holderNesting() {
		return Arbitraries.frequency(Tuple.of(2, Nesting.NONE), Tuple.of(1, Nesting.READ_IN_WRITE),
				Tuple.of(1, Nesting.DOWNGRADE));
	}

	// early enough that the hold, the wait and the fault fall within the schedule's span
	static Arbitrary<Long> startOfContention() {
		return Arbitraries.longs().between(0, 40).map((slot) -> slot * 50);
	}

	static Arbitrary<Step> step(@Nullable Family focus) {
		Arbitrary<Op> op = Arbitraries.frequencyOf(Tuple.of(9, acquire(focus)), Tuple.of(1, revoke(focus)),
				Tuple.of(1, deleteNode(focus)));
		return Combinators.combine(Arbitraries.integers().between(0, Schedule.CLIENTS - 1),
				Arbitraries.integers().between(0, Schedule.WORKERS - 1), offset(), op)
			.as(Step::new);
	}

	/**
	 * A fault at any moment, or, more often, aimed at an operation: its client, as it
	 * starts or while its first requests are under way.
	 */
	static Arbitrary<FaultStep> fault(List<Step> steps, List<FaultKind> kinds) {
		Arbitrary<FaultStep> anywhere = Combinators
			.combine(Arbitraries.of(kinds), Arbitraries.integers().between(0, Schedule.CLIENTS - 1),
					offset())
			.as(FaultStep::new);
		Arbitrary<FaultStep> aimed = Combinators
			.combine(Arbitraries.of(kinds), Arbitraries.integers().between(0, steps.size() - 1),
					Arbitraries.of(0L, 10L, 20L, 50L, 100L, 250L))
			.as((kind, index, delay) -> new FaultStep(kind, steps.get(index).client(),
					steps.get(index).atMillis() + delay));
		return Arbitraries.frequencyOf(Tuple.of(3, anywhere), Tuple.of(7, aimed));
	}

	private static Arbitrary<Long> offset() {
		return Arbitraries.longs().between(0, Schedule.SPAN_MILLIS / 50).map((slot) -> slot * 50);
	}

	private static Arbitrary<Op> revoke(@Nullable Family focus) {
		Arbitrary<Family> family = (focus != null) ? Arbitraries.just(focus) : Arbitraries.of(Family.class);
		return Combinators.combine(family, Arbitraries.of("a", "b")).as(Revoke::new);
	}

	private static Arbitrary<Op> acquire(@Nullable Family focus) {
		List<Tuple2<Integer, Arbitrary<Tuple2<Family, LockMode>>>> locks = new ArrayList<>();
		for (Tuple2<Integer, Tuple2<Family, LockMode>> lock : List.of(Tuple.of(4, Tuple.of(Family.MUTEX, LockMode.MUTEX)),
				Tuple.of(3, Tuple.of(Family.READ_WRITE, LockMode.WRITE)),
				Tuple.of(2, Tuple.of(Family.READ_WRITE, LockMode.READ)),
				Tuple.of(2, Tuple.of(Family.SEMAPHORE, LockMode.SEMAPHORE)))) {
			if (focus == null || lock.get2().get1() == focus) {
				locks.add(Tuple.of(lock.get1(), Arbitraries.just(lock.get2())));
			}
		}
		@SuppressWarnings("unchecked")
		Arbitrary<Tuple2<Family, LockMode>> lock = Arbitraries.frequencyOf(locks.toArray(new Tuple2[0]));
		Arbitrary<List<String>> keys = Arbitraries.frequency(Tuple.of(6, List.of("a")), Tuple.of(2, List.of("b")),
				Tuple.of(2, List.of("a", "b")));
		// half the acquisitions that can go through the client's local queue do
		Arbitrary<Tuple2<Boolean, Boolean>> asyncAndHandoff = Combinators
			.combine(Arbitraries.frequency(Tuple.of(7, false), Tuple.of(3, true)), Arbitraries.of(false, true))
			.as(Tuple::of);
		Arbitrary<Long> timeout = Arbitraries.of(2_500L, 700L, 200L, 0L);
		// now and then a long hold, so that waits meet the faults
		Arbitrary<Long> hold = Arbitraries.frequencyOf(Tuple.of(9, Arbitraries.longs().between(0, 10).map((slot) -> slot * 50)),
				Tuple.of(1, Arbitraries.just(1_500L)));
		Arbitrary<Nesting> nesting = Arbitraries.frequency(Tuple.of(6, Nesting.NONE), Tuple.of(1, Nesting.REENTER),
				Tuple.of(3, Nesting.READ_IN_WRITE), Tuple.of(3, Nesting.DOWNGRADE));
		Arbitrary<Tuple2<Long, Long>> bounds = Arbitraries.frequency(Tuple.of(8, Tuple.of(0L, 0L)),
				Tuple.of(1, Tuple.of(300L, 0L)), Tuple.of(1, Tuple.of(0L, 250L)));
		Arbitrary<Long> giveUp = Arbitraries.frequencyOf(Tuple.of(9, Arbitraries.just(0L)),
				Tuple.of(1, Arbitraries.longs().between(1, 30).map((slot) -> slot * 50)));
		return Combinators.combine(lock, keys, asyncAndHandoff, timeout, hold, nesting, bounds, giveUp)
			.as((familyMode, someKeys, howToAsk, timeoutMillis, holdMillis, nest, minMax, giveUpMillis) -> {
				boolean isAsync = howToAsk.get1();
				Nesting actual = nest;
				if (isAsync || nest == Nesting.READ_IN_WRITE && familyMode.get2() != LockMode.WRITE
						|| nest == Nesting.DOWNGRADE && familyMode.get2() != LockMode.WRITE) {
					actual = Nesting.NONE;
				}
				return new Acquire(familyMode.get1(), someKeys, familyMode.get2(), isAsync, timeoutMillis, holdMillis,
						actual, minMax.get1(), minMax.get2(), giveUpMillis,
						howToAsk.get2() && Acquire.canHandOff(someKeys, familyMode.get2()));
			});
	}

	/**
	 * In half the schedules, a deletion aimed at an acquisition: of its first key, 20 to
	 * 300 ms after it starts, when its node likely holds (a deletion at a random moment
	 * mostly finds nobody holding); at one that holds longer than the checker's loss
	 * notice, when there is one, since a holder that releases within the notice of the
	 * deletion cannot be told from one that heard of it.
	 */
	static Arbitrary<Step> aimedDeletion(List<Step> steps) {
		List<Step> acquisitions = steps.stream().filter((step) -> step.op() instanceof Acquire).toList();
		List<Step> longHolds = acquisitions.stream()
			.filter((step) -> ((Acquire) step.op()).holdMillis() > 500)
			.toList();
		if (!longHolds.isEmpty()) {
			acquisitions = longHolds;
		}
		if (acquisitions.isEmpty()) {
			return Arbitraries.just(null);
		}
		return Combinators.combine(Arbitraries.of(acquisitions), Arbitraries.of(20L, 50L, 100L, 200L, 300L))
			.as((step, delay) -> new Step(step.client(), step.worker(),
					Math.min(Schedule.SPAN_MILLIS, step.atMillis() + delay),
					new DeleteNode(((Acquire) step.op()).family(), ((Acquire) step.op()).keys().get(0))))
			.injectNull(0.5);
	}

	private static List<Step> withDeletion(List<Step> steps, @Nullable Step deletion) {
		if (deletion == null) {
			return steps;
		}
		List<Step> all = new ArrayList<>(steps);
		all.add(deletion);
		return all;
	}

	private static Arbitrary<Op> deleteNode(@Nullable Family focus) {
		Arbitrary<Family> family = (focus != null) ? Arbitraries.just(focus) : Arbitraries.of(Family.class);
		return Combinators.combine(family, Arbitraries.of("a", "b")).as(DeleteNode::new);
	}

}
