package dev.zklock.schedules;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.Schedule.Acquire;
import dev.zklock.schedules.Schedule.DeleteNode;
import dev.zklock.schedules.Schedule.Family;
import dev.zklock.schedules.Schedule.FaultKind;
import dev.zklock.schedules.Schedule.FaultStep;
import dev.zklock.schedules.Schedule.Nesting;
import dev.zklock.schedules.Schedule.Revoke;
import dev.zklock.schedules.Schedule.Step;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The generator on its own, without a server: every schedule it draws is one the
 * runner can run as meant, its schedules keep their variety, and enough of them aim a
 * session fault into a wait, where the bugs of the past hid. The samples come from
 * fixed seeds, as the fixed seed's schedules do, so that a share is the same in every
 * build.
 */
class ScheduleArbitrariesTests {

	private static final List<Schedule> SCHEDULES = sample(ScheduleArbitraries.schedules(), 1_000);

	private static final List<Schedule> SOAK_SCHEDULES = sample(ScheduleArbitraries.schedules(List.of(FaultKind.values())),
			1_000);

	@Test
	void everyStepIsWithinTheSchedule() {
		for (Schedule schedule : SCHEDULES) {
			// 4 to 16 drawn, and maybe one deletion aimed at one of them (and a cycle's, see CyclesTests)
			assertThat(schedule.steps().stream().filter((step) -> !(step.op() instanceof Schedule.Nested)))
				.hasSizeBetween(4, 17);
			assertThat(schedule.faults()).hasSizeLessThanOrEqualTo(3);
			for (Step step : schedule.steps()) {
				assertThat(step.client()).isBetween(0, Schedule.CLIENTS - 1);
				assertThat(step.worker()).isBetween(0, Schedule.WORKERS - 1);
				assertThat(step.atMillis()).isBetween(0L, Schedule.SPAN_MILLIS);
			}
			schedule.faults().forEach((fault) -> assertThat(fault.client()).isBetween(0, Schedule.CLIENTS - 1));
		}
	}

	@Test
	void everyAcquisitionAsksForWhatItsLockNameTakes() {
		SCHEDULES.stream()
			.flatMap((schedule) -> schedule.steps().stream())
			.map(Step::op)
			.filter(Acquire.class::isInstance)
			.map(Acquire.class::cast)
			.forEach(ScheduleArbitrariesTests::assertRunnable);
	}

	private static void assertRunnable(Acquire acquire) {
		LockMode mode = acquire.mode();
		switch (acquire.family()) {
			case MUTEX -> assertThat(mode).isEqualTo(LockMode.MUTEX);
			case READ_WRITE -> assertThat(mode).isIn(LockMode.READ, LockMode.WRITE);
			case SEMAPHORE -> assertThat(mode).isEqualTo(LockMode.SEMAPHORE);
		}
		assertThat(acquire.keys()).isNotEmpty().doesNotHaveDuplicates();
		if (acquire.localHandoff()) {
			assertThat(Acquire.canHandOff(acquire.keys(), mode)).as(acquire.toString()).isTrue();
		}
		// the asynchronous API has no nesting; READ inside WRITE and downgrades need a WRITE
		if (acquire.async()) {
			assertThat(acquire.nesting()).isEqualTo(Nesting.NONE);
		}
		if (acquire.nesting() == Nesting.READ_IN_WRITE || acquire.nesting() == Nesting.DOWNGRADE) {
			assertThat(acquire.family()).isEqualTo(Family.READ_WRITE);
			assertThat(mode).isEqualTo(LockMode.WRITE);
		}
	}

	// A generator that lost a feature would still pass the checks above: each feature comes up in a fair share
	@Test
	void everyFeatureComesUp() {
		assertShare("async", anyAcquire(Acquire::async), 5);
		assertShare("single try", anyAcquire((acquire) -> acquire.timeoutMillis() == 0), 5);
		assertShare("two keys", anyAcquire((acquire) -> acquire.keys().size() == 2), 5);
		assertShare("give-up", anyAcquire((acquire) -> acquire.giveUpMillis() > 0), 5);
		assertShare("minHold", anyAcquire((acquire) -> acquire.minHoldMillis() > 0), 5);
		assertShare("maxHold", anyAcquire((acquire) -> acquire.maxHoldMillis() > 0), 5);
		assertShare("local hand-off", anyAcquire(Acquire::localHandoff), 5);
		assertShare("revoke", (schedule) -> schedule.steps().stream().anyMatch((step) -> step.op() instanceof Revoke),
				5);
		assertShare("delete node",
				(schedule) -> schedule.steps().stream().anyMatch((step) -> step.op() instanceof DeleteNode), 5);
		assertShare("no fault", (schedule) -> schedule.faults().isEmpty(), 5);
		for (Nesting nesting : Nesting.values()) {
			assertShare(nesting.name(), anyAcquire((acquire) -> acquire.nesting() == nesting), 5);
		}
		for (LockMode mode : LockMode.values()) {
			assertShare(mode.name(), anyAcquire((acquire) -> acquire.mode() == mode), 5);
		}
		for (FaultKind kind : FaultKind.inJvm()) {
			assertShare(kind.name(), anyFault(kind), 3);
		}
	}

	// The soak's schedules draw on every fault kind, those of processes, the ensemble and the firewall included
	@Test
	void theSoakDrawsEveryFaultKind() {
		for (FaultKind kind : FaultKind.values()) {
			assertThat(share(SOAK_SCHEDULES, anyFault(kind))).as(kind.name()).isGreaterThanOrEqualTo(1);
		}
	}

	// Of the schedules drawn, how many a session fault of a waiter's client hits while it is queued behind another
	// client's hold, and how many expire a WRITE holder before the READ inside it while another client waits for
	// WRITE: the windows of the session bugs of the past (docs/failures.md), as the schedule means them (the
	// pacing of the workers may shift them)
	@Test
	void sessionFaultsAreAimedIntoWaits() {
		assertShare("session fault while queued", ScheduleArbitrariesTests::faultWhileQueued, 15);
		assertShare("expiry before a READ inside WRITE", ScheduleArbitrariesTests::expiryBeforeReadInsideWrite, 5);
	}

	// Local hand-off passes only between a client's own waiters of one key: two or more of its workers must ask for
	// the key in one mode with local hand-off. Most such schedules also have another client ask for it meanwhile,
	// which bounds the tenure's passes, and a plain acquisition beside
	@Test
	void localWaitersOfOneClientMeetOnAHotKey() {
		assertShare("local waiters of one client on one key", ScheduleArbitrariesTests::localContention, 30);
		assertShare("and another client's exclusive waiter",
				(schedule) -> localContention(schedule) && othersWait(schedule), 20);
		assertShare("beside plain acquisitions", (schedule) -> localContention(schedule) && schedule.steps()
			.stream()
			.anyMatch((step) -> step.op() instanceof Acquire acquire && !acquire.localHandoff()), 25);
	}

	static List<Schedule> sample(Gen<Schedule> schedules, int count) {
		ScheduleProperty property = new ScheduleProperty(schedules, RandomScheduleTests.SHRINKING);
		return ScheduleProperty.seeds(RandomScheduleTests.FIXED_SEED, count).stream().map(property::generate).toList();
	}

	private static void assertShare(String feature, Predicate<Schedule> present, double minPercent) {
		assertThat(share(SCHEDULES, present)).as(feature).isGreaterThanOrEqualTo(minPercent);
	}

	// in percent of the schedules
	private static double share(List<Schedule> schedules, Predicate<Schedule> present) {
		return 100.0 * schedules.stream().filter(present).count() / schedules.size();
	}

	private static Predicate<Schedule> anyAcquire(Predicate<Acquire> present) {
		return (schedule) -> schedule.steps()
			.stream()
			.map(Step::op)
			.anyMatch((op) -> op instanceof Acquire acquire && present.test(acquire));
	}

	private static Predicate<Schedule> anyFault(FaultKind kind) {
		return (schedule) -> schedule.faults().stream().anyMatch((fault) -> fault.kind() == kind);
	}

	private static boolean localContention(Schedule schedule) {
		return schedule.steps()
			.stream()
			.filter((step) -> step.op() instanceof Acquire acquire && acquire.localHandoff())
			.collect(Collectors.groupingBy(HotKeyOf::of, Collectors.mapping(Step::worker, Collectors.toSet())))
			.values()
			.stream()
			.anyMatch((workers) -> workers.size() >= 2);
	}

	// another client asks for a hot key of a client in a mode that waits for the tenure
	private static boolean othersWait(Schedule schedule) {
		Map<HotKeyOf, Set<Integer>> hot = schedule.steps()
			.stream()
			.filter((step) -> step.op() instanceof Acquire acquire && acquire.localHandoff())
			.collect(Collectors.groupingBy(HotKeyOf::of, Collectors.mapping(Step::worker, Collectors.toSet())));
		return hot.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().size() >= 2)
			.anyMatch((entry) -> schedule.steps()
				.stream()
				.anyMatch((step) -> step.client() != entry.getKey().client() && step.op() instanceof Acquire acquire
						&& acquire.family() == entry.getKey().family() && acquire.keys().equals(entry.getKey().keys())
						&& (acquire.mode() == LockMode.MUTEX || acquire.mode() == LockMode.WRITE)));
	}

	/** The local queue a step with local hand-off waits in. */
	private record HotKeyOf(int client, Family family, List<String> keys, LockMode mode) {

		static HotKeyOf of(Step step) {
			Acquire acquire = (Acquire) step.op();
			return new HotKeyOf(step.client(), acquire.family(), acquire.keys(), acquire.mode());
		}

	}

	private static boolean faultWhileQueued(Schedule schedule) {
		for (Step waiter : schedule.steps()) {
			if (!(waiter.op() instanceof Acquire wait)) {
				continue;
			}
			for (FaultStep fault : schedule.faults()) {
				if (fault.client() != waiter.client() || !ScheduleArbitraries.SESSION_FAULTS.contains(fault.kind())
						|| fault.atMillis() <= waiter.atMillis()
						|| fault.atMillis() >= waiter.atMillis() + wait.timeoutMillis()) {
					continue;
				}
				long holders = schedule.steps()
					.stream()
					.filter((holder) -> holder.client() != waiter.client() && holder.op() instanceof Acquire hold
							&& blocks(hold, wait) && holder.atMillis() <= waiter.atMillis()
							&& fault.atMillis() < holder.atMillis() + hold.holdMillis())
					.count();
				if (holders >= wait.family().permits) {
					return true;
				}
			}
		}
		return false;
	}

	private static boolean expiryBeforeReadInsideWrite(Schedule schedule) {
		for (Step holder : schedule.steps()) {
			if (!(holder.op() instanceof Acquire hold) || hold.mode() != LockMode.WRITE
					|| hold.nesting() != Nesting.READ_IN_WRITE && hold.nesting() != Nesting.DOWNGRADE) {
				continue;
			}
			for (Step waiter : schedule.steps()) {
				if (waiter.client() != holder.client() && waiter.op() instanceof Acquire wait
						&& wait.mode() == LockMode.WRITE && blocks(hold, wait) && waiter.atMillis() > holder.atMillis()
						&& schedule.faults()
							.stream()
							.anyMatch((fault) -> fault.kind() == FaultKind.EXPIRE && fault.client() == holder.client()
									&& fault.atMillis() > waiter.atMillis()
									&& fault.atMillis() < holder.atMillis() + hold.holdMillis() / 2)) {
					return true;
				}
			}
		}
		return false;
	}

	// a hold of the same lock name on a key the other asks for, in a mode that keeps it out
	private static boolean blocks(Acquire hold, Acquire wait) {
		return hold.family() == wait.family() && hold.keys().stream().anyMatch(wait.keys()::contains)
				&& (hold.family() == Family.SEMAPHORE || HistoryChecker.conflict(hold.mode(), wait.mode()));
	}

}
