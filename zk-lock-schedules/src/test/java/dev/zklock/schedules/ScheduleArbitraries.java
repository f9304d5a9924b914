package dev.zklock.schedules;

import java.util.ArrayList;
import java.util.List;

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
 * three faults, most aimed at an operation.
 * Most schedules keep to one lock name, so that its holders and waiters meet.
 * Everything shrinks towards fewer, simpler steps and fewer faults.
 */
final class ScheduleArbitraries {

	private ScheduleArbitraries() {
	}

	/**
	 * Schedules over every lock name, or, in most, over one name only: its holders and
	 * waiters then meet far more often.
	 */
	static Arbitrary<Schedule> schedules() {
		return schedules(FaultKind.inJvm());
	}

	/**
	 * Schedules as above, with faults of the given kinds: the soak adds those of
	 * processes, the ensemble and the firewall.
	 */
	static Arbitrary<Schedule> schedules(List<FaultKind> kinds) {
		Arbitrary<Family> focus = Arbitraries.of(Family.class).injectNull(0.4);
		return focus.flatMap((family) -> step(family).list()
			.ofMinSize(4)
			.ofMaxSize(16)
			.flatMap((steps) -> Combinators.combine(aimedDeletion(steps), fault(steps, kinds).list().ofMaxSize(3))
				.as((deletion, faults) -> new Schedule(withDeletion(steps, deletion), faults))));
	}

	static Arbitrary<Step> step(@Nullable Family focus) {
		Arbitrary<Op> op = Arbitraries.frequencyOf(Tuple.of(9, acquire(focus)), Tuple.of(1, revoke(focus)),
				Tuple.of(1, deleteNode(focus)));
		return Combinators.combine(Arbitraries.integers().between(0, Schedule.CLIENTS - 1),
				Arbitraries.integers().between(0, Schedule.WORKERS - 1), offset(), op)
			.as(Step::new);
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

	private static Arbitrary<Op> deleteNode(@Nullable Family focus) {
		Arbitrary<Family> family = (focus != null) ? Arbitraries.just(focus) : Arbitraries.of(Family.class);
		return Combinators.combine(family, Arbitraries.of("a", "b")).as(DeleteNode::new);
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
		Arbitrary<Boolean> async = Arbitraries.frequency(Tuple.of(7, false), Tuple.of(3, true));
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
