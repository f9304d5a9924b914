package dev.zklock.schedules;

import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.Schedule.Acquire;
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
 * interrupts and cancels, {@code minHold} and {@code maxHold}, and revokes; and up to
 * three faults. Everything shrinks towards fewer, simpler steps and fewer faults.
 */
final class ScheduleArbitraries {

	private ScheduleArbitraries() {
	}

	static Arbitrary<Schedule> schedules() {
		Arbitrary<List<Step>> steps = step().list().ofMinSize(4).ofMaxSize(16);
		Arbitrary<List<FaultStep>> faults = fault().list().ofMaxSize(3);
		return Combinators.combine(steps, faults).as(Schedule::new);
	}

	static Arbitrary<Step> step() {
		Arbitrary<Op> op = Arbitraries.frequencyOf(Tuple.of(9, acquire()), Tuple.of(1, revoke()));
		return Combinators.combine(Arbitraries.integers().between(0, Schedule.CLIENTS - 1),
				Arbitraries.integers().between(0, Schedule.WORKERS - 1), offset(), op)
			.as(Step::new);
	}

	static Arbitrary<FaultStep> fault() {
		return Combinators
			.combine(Arbitraries.of(FaultKind.class), Arbitraries.integers().between(0, Schedule.CLIENTS - 1),
					offset())
			.as(FaultStep::new);
	}

	private static Arbitrary<Long> offset() {
		return Arbitraries.longs().between(0, Schedule.SPAN_MILLIS / 50).map((slot) -> slot * 50);
	}

	private static Arbitrary<Op> revoke() {
		return Combinators.combine(Arbitraries.of(Family.class), Arbitraries.of("a", "b")).as(Revoke::new);
	}

	private static Arbitrary<Op> acquire() {
		Arbitrary<Tuple2<Family, LockMode>> lock = Arbitraries.frequencyOf(
				Tuple.of(4, Arbitraries.just(Tuple.of(Family.MUTEX, LockMode.MUTEX))),
				Tuple.of(3, Arbitraries.just(Tuple.of(Family.READ_WRITE, LockMode.WRITE))),
				Tuple.of(2, Arbitraries.just(Tuple.of(Family.READ_WRITE, LockMode.READ))),
				Tuple.of(2, Arbitraries.just(Tuple.of(Family.SEMAPHORE, LockMode.SEMAPHORE))));
		Arbitrary<List<String>> keys = Arbitraries.frequency(Tuple.of(6, List.of("a")), Tuple.of(2, List.of("b")),
				Tuple.of(2, List.of("a", "b")));
		Arbitrary<Boolean> async = Arbitraries.frequency(Tuple.of(7, false), Tuple.of(3, true));
		Arbitrary<Long> timeout = Arbitraries.of(2_500L, 700L, 200L, 0L);
		Arbitrary<Long> hold = Arbitraries.longs().between(0, 10).map((slot) -> slot * 50);
		Arbitrary<Nesting> nesting = Arbitraries.frequency(Tuple.of(6, Nesting.NONE), Tuple.of(1, Nesting.REENTER),
				Tuple.of(2, Nesting.READ_IN_WRITE), Tuple.of(2, Nesting.DOWNGRADE));
		Arbitrary<Tuple2<Long, Long>> bounds = Arbitraries.frequency(Tuple.of(8, Tuple.of(0L, 0L)),
				Tuple.of(1, Tuple.of(300L, 0L)), Tuple.of(1, Tuple.of(0L, 250L)));
		Arbitrary<Long> giveUp = Arbitraries.frequencyOf(Tuple.of(9, Arbitraries.just(0L)),
				Tuple.of(1, Arbitraries.longs().between(1, 30).map((slot) -> slot * 50)));
		return Combinators.combine(lock, keys, async, timeout, hold, nesting, bounds, giveUp)
			.as((familyMode, someKeys, isAsync, timeoutMillis, holdMillis, nest, minMax, giveUpMillis) -> {
				Nesting actual = nest;
				if (isAsync || nest == Nesting.READ_IN_WRITE && familyMode.get2() != LockMode.WRITE
						|| nest == Nesting.DOWNGRADE && familyMode.get2() != LockMode.WRITE) {
					actual = Nesting.NONE;
				}
				return new Acquire(familyMode.get1(), someKeys, familyMode.get2(), isAsync, timeoutMillis, holdMillis,
						actual, minMax.get1(), minMax.get2(), giveUpMillis);
			});
	}

}
