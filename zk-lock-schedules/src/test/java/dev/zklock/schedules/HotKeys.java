package dev.zklock.schedules;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.Schedule.Acquire;
import dev.zklock.schedules.Schedule.DeleteNode;
import dev.zklock.schedules.Schedule.Family;
import dev.zklock.schedules.Schedule.FaultKind;
import dev.zklock.schedules.Schedule.FaultStep;
import dev.zklock.schedules.Schedule.Nesting;
import dev.zklock.schedules.Schedule.Step;

import static dev.zklock.schedules.Gen.weight;

/**
 * Schedules around a hot key of local hand-off, for {@link ScheduleArbitraries}: each
 * worker of one client takes one key two or three times in a row with local
 * hand-off, holding it 25–300 ms, so that two of them queue in their client's local
 * queue behind the third's tenure and the key passes between them without
 * ZooKeeper; a long hold first and short ones after pass the key on while another
 * client is known to wait. Another client asks for the key in an exclusive mode 0–150 ms into it,
 * with or without local hand-off: the tenure may pass on at most
 * {@link ScheduleClient#MAX_PASSES} times ahead of it, or for
 * {@link ScheduleClient#MAX_TIME}. In four schedules of ten a third client takes the
 * key in turns with two workers of its own, a tenure against a tenure; in half, a
 * fault of the hot client's session, connection or process 50–400 ms in ends the
 * tenure for all its holders; in three of ten an operator deletes the tenure's node.
 * Random steps, most on the same lock name, and up to two random faults fill in the
 * rest.
 */
final class HotKeys {

	/** Faults that end a tenure for its holders, or make them doubt it. */
	private static final List<FaultKind> TENURE_FAULTS = List.of(FaultKind.EXPIRE, FaultKind.EXPIRE_ON_CLIENT,
			FaultKind.DROP, FaultKind.BLACKHOLE_SHORT, FaultKind.BLACKHOLE_PAST_SESSION,
			FaultKind.PAUSE_WITHIN_SESSION);

	private static final long TIMEOUT_MILLIS = 2_500;

	private HotKeys() {
	}

	/**
	 * Schedules around a hot key, with random steps and faults of the given kinds
	 * around it.
	 * @param kinds the kinds of the random faults
	 * @return the schedules
	 */
	static Gen<Schedule> schedules(List<FaultKind> kinds) {
		return core().flatMap(
				(core) -> ScheduleArbitraries.withRandomSteps(core.family(), core.steps(), core.faults(), 0, kinds));
	}

	/**
	 * The steps around a hot key and the faults aimed into its tenures.
	 * @param family the lock name
	 * @param steps the hot client's rounds first, so that each worker starts on time
	 * @param faults no fault, or one of the hot client
	 */
	private record Hot(Family family, List<Step> steps, List<FaultStep> faults) {
	}

	/** One acquisition of a hot client's worker. */
	private record Round(LockMode mode, boolean async, long holdMillis) {
	}

	/** Another client's acquisition of the hot key, as the tenure passes on. */
	private record Waiter(long delayMillis, LockMode mode, boolean localHandoff, boolean async, long holdMillis) {
	}

	/** A fault of the hot client, this long into its tenure. */
	private record Aimed(FaultKind kind, long delayMillis) {
	}

	private static Gen<Hot> core() {
		Gen<Family> family = Gen.of(Family.MUTEX, Family.READ_WRITE);
		Gen<Integer> client = Gen.integers(0, Schedule.CLIENTS - 1);
		Gen<String> hotKey = Gen.frequency(weight(3, "a"), weight(1, "b"));
		Gen<@Nullable Long> deletionAt = Gen.of(50L, 100L, 200L).orNull(0.7);
		return family.flatMap((lock) -> {
			Gen<List<List<Round>>> hotRounds = round(lock).listOf(2, 3).listOf(Schedule.WORKERS);
			Gen<@Nullable List<List<Round>>> rivalRounds = round(lock).listOf(2).listOf(2).orNull(0.6);
			Gen<Waiter> waiters = waiter(lock);
			Gen<@Nullable Aimed> aimed = aimed().orNull(0.5);
			return (random) -> {
				int hot = client.next(random);
				long start = ScheduleArbitraries.startOfContention().next(random);
				String key = hotKey.next(random);
				List<List<Round>> rounds = hotRounds.next(random);
				Waiter waiter = waiters.next(random);
				List<List<Round>> rival = rivalRounds.next(random);
				Aimed fault = aimed.next(random);
				Long deletion = deletionAt.next(random);
				List<String> keys = List.of(key);
				int other = (hot + 1) % Schedule.CLIENTS;
				int third = (hot + 2) % Schedule.CLIENTS;
				List<Step> steps = new ArrayList<>();
				addRounds(steps, lock, keys, hot, start, rounds);
				steps.add(new Step(other, 0, start + waiter.delayMillis(), new Acquire(lock, keys, waiter.mode(),
						waiter.async(), TIMEOUT_MILLIS, waiter.holdMillis(), Nesting.NONE, 0, 0, 0,
						waiter.localHandoff())));
				if (rival != null) {
					addRounds(steps, lock, keys, third, start + waiter.delayMillis(), rival);
				}
				if (deletion != null) {
					steps.add(new Step(hot, 0, start + deletion, new DeleteNode(lock, key)));
				}
				List<FaultStep> faults = (fault != null)
						? List.of(new FaultStep(fault.kind(), hot, start + fault.delayMillis())) : List.of();
				return new Hot(lock, List.copyOf(steps), faults);
			};
		});
	}

	// each worker's rounds at one offset, a few milliseconds apart from the next worker's: its next round asks as soon
	// as its previous one has released
	private static void addRounds(List<Step> steps, Family lock, List<String> keys, int client, long start,
			List<List<Round>> rounds) {
		for (int worker = 0; worker < rounds.size(); worker++) {
			for (Round round : rounds.get(worker)) {
				steps.add(new Step(client, worker, start + 10L * worker, new Acquire(lock, keys, round.mode(),
						round.async(), TIMEOUT_MILLIS, round.holdMillis(), Nesting.NONE, 0, 0, 0, true)));
			}
		}
	}

	private static Gen<Round> round(Family lock) {
		Gen<LockMode> mode = hotMode(lock);
		Gen<Boolean> async = Gen.frequency(weight(7, false), weight(3, true));
		Gen<Long> hold = Gen.of(25L, 50L, 100L, 300L);
		return (random) -> new Round(mode.next(random), async.next(random), hold.next(random));
	}

	// mostly exclusive, so that the key passes from one holder to the next; READ now and then, a tenure of readers
	private static Gen<LockMode> hotMode(Family lock) {
		return (lock == Family.MUTEX) ? Gen.constant(LockMode.MUTEX)
				: Gen.frequency(weight(3, LockMode.WRITE), weight(1, LockMode.READ));
	}

	private static Gen<Waiter> waiter(Family lock) {
		LockMode exclusive = (lock == Family.MUTEX) ? LockMode.MUTEX : LockMode.WRITE;
		Gen<Long> delay = Gen.of(0L, 20L, 50L, 150L);
		Gen<Boolean> handoff = Gen.booleans();
		Gen<Boolean> async = Gen.frequency(weight(7, false), weight(3, true));
		Gen<Long> hold = Gen.of(0L, 100L, 300L);
		return (random) -> new Waiter(delay.next(random), exclusive, handoff.next(random), async.next(random),
				hold.next(random));
	}

	private static Gen<Aimed> aimed() {
		return Gen.of(TENURE_FAULTS).with(Gen.of(50L, 100L, 200L, 400L), Aimed::new);
	}

}
