package dev.zklock.schedules;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

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
 * session fault into a wait, where the bugs of the past hid.
 */
class ScheduleArbitrariesTests {

	@Property(tries = 300)
	void everyStepIsWithinTheSchedule(@ForAll("schedules") Schedule schedule) {
		// 4 to 16 drawn, and maybe one deletion aimed at one of them
		assertThat(schedule.steps()).hasSizeBetween(4, 17);
		assertThat(schedule.faults()).hasSizeLessThanOrEqualTo(3);
		for (Step step : schedule.steps()) {
			assertThat(step.client()).isBetween(0, Schedule.CLIENTS - 1);
			assertThat(step.worker()).isBetween(0, Schedule.WORKERS - 1);
			assertThat(step.atMillis()).isBetween(0L, Schedule.SPAN_MILLIS);
		}
		schedule.faults().forEach((fault) -> assertThat(fault.client()).isBetween(0, Schedule.CLIENTS - 1));
	}

	@Property(tries = 300)
	void everyAcquisitionAsksForWhatItsLockNameTakes(@ForAll("schedules") Schedule schedule) {
		for (Step step : schedule.steps()) {
			if (step.op() instanceof Acquire acquire) {
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
		}
	}

	// A generator that lost a feature would still pass the checks above: each feature comes up in a fair share
	@Property(tries = 1_000)
	void everyFeatureComesUp(@ForAll("schedules") Schedule schedule) {
		List<Acquire> acquires = schedule.steps()
			.stream()
			.map(Step::op)
			.filter(Acquire.class::isInstance)
			.map(Acquire.class::cast)
			.toList();
		Statistics.label("async").collect(acquires.stream().anyMatch(Acquire::async));
		Statistics.label("single try").collect(acquires.stream().anyMatch((acquire) -> acquire.timeoutMillis() == 0));
		Statistics.label("two keys").collect(acquires.stream().anyMatch((acquire) -> acquire.keys().size() == 2));
		Statistics.label("give-up").collect(acquires.stream().anyMatch((acquire) -> acquire.giveUpMillis() > 0));
		Statistics.label("minHold").collect(acquires.stream().anyMatch((acquire) -> acquire.minHoldMillis() > 0));
		Statistics.label("maxHold").collect(acquires.stream().anyMatch((acquire) -> acquire.maxHoldMillis() > 0));
		Statistics.label("local hand-off").collect(acquires.stream().anyMatch(Acquire::localHandoff));
		Statistics.label("revoke").collect(schedule.steps().stream().anyMatch((step) -> step.op() instanceof Revoke));
		for (Nesting nesting : Nesting.values()) {
			Statistics.label(nesting.name()).collect(acquires.stream().anyMatch((acquire) -> acquire.nesting() == nesting));
		}
		for (LockMode mode : LockMode.values()) {
			Statistics.label(mode.name()).collect(acquires.stream().anyMatch((acquire) -> acquire.mode() == mode));
		}
		for (FaultKind kind : FaultKind.inJvm()) {
			Statistics.label(kind.name()).collect(schedule.faults().stream().anyMatch((fault) -> fault.kind() == kind));
		}
		Statistics.label("delete node").collect(schedule.steps().stream().anyMatch((step) -> step.op() instanceof DeleteNode));
		Statistics.label("no fault").collect(schedule.faults().isEmpty());
		for (String feature : List.of("async", "single try", "two keys", "give-up", "minHold", "maxHold",
				"local hand-off", "revoke", "delete node", "no fault")) {
			Statistics.label(feature).coverage((coverage) -> coverage.check(true).percentage((p) -> p >= 5));
		}
		for (Nesting nesting : Nesting.values()) {
			Statistics.label(nesting.name()).coverage((coverage) -> coverage.check(true).percentage((p) -> p >= 5));
		}
		for (LockMode mode : LockMode.values()) {
			Statistics.label(mode.name()).coverage((coverage) -> coverage.check(true).percentage((p) -> p >= 5));
		}
		for (FaultKind kind : FaultKind.inJvm()) {
			Statistics.label(kind.name()).coverage((coverage) -> coverage.check(true).percentage((p) -> p >= 3));
		}
	}

	// The soak's schedules draw on every fault kind, those of processes, the ensemble and the firewall included
	@Property(tries = 1_000)
	void theSoakDrawsEveryFaultKind(@ForAll("soakSchedules") Schedule schedule) {
		for (FaultKind kind : FaultKind.values()) {
			Statistics.label(kind.name()).collect(schedule.faults().stream().anyMatch((fault) -> fault.kind() == kind));
			Statistics.label(kind.name()).coverage((coverage) -> coverage.check(true).percentage((p) -> p >= 1));
		}
	}

	@Provide
	Arbitrary<Schedule> soakSchedules() {
		return ScheduleArbitraries.schedules(List.of(FaultKind.values()));
	}

	// Of the schedules drawn, how many a session fault of a waiter's client hits while it is queued behind another
	// client's hold, and how many expire a WRITE holder before the READ inside it while another client waits for
	// WRITE: the windows of the session bugs of the past (docs/failures.md), as the schedule means them (the
	// pacing of the workers may shift them)
	@Property(tries = 1_000)
	void sessionFaultsAreAimedIntoWaits(@ForAll("schedules") Schedule schedule) {
		Statistics.label("session fault while queued").collect(faultWhileQueued(schedule));
		Statistics.label("expiry before a READ inside WRITE").collect(expiryBeforeReadInsideWrite(schedule));
		Statistics.label("session fault while queued")
			.coverage((coverage) -> coverage.check(true).percentage((p) -> p >= 15));
		Statistics.label("expiry before a READ inside WRITE")
			.coverage((coverage) -> coverage.check(true).percentage((p) -> p >= 5));
	}

	// Local hand-off passes only between a client's own waiters of one key: two or more of its workers must ask for
	// the key in one mode with local hand-off. Most such schedules also have another client ask for it meanwhile,
	// which bounds the tenure's passes, and a plain acquisition beside
	@Property(tries = 1_000)
	void localWaitersOfOneClientMeetOnAHotKey(@ForAll("schedules") Schedule schedule) {
		boolean local = localContention(schedule);
		Statistics.label("local waiters of one client on one key").collect(local);
		Statistics.label("and another client's exclusive waiter").collect(local && othersWait(schedule));
		Statistics.label("beside plain acquisitions")
			.collect(local && schedule.steps()
				.stream()
				.anyMatch((step) -> step.op() instanceof Acquire acquire && !acquire.localHandoff()));
		Statistics.label("local waiters of one client on one key")
			.coverage((coverage) -> coverage.check(true).percentage((p) -> p >= 30));
		Statistics.label("and another client's exclusive waiter")
			.coverage((coverage) -> coverage.check(true).percentage((p) -> p >= 20));
		Statistics.label("beside plain acquisitions")
			.coverage((coverage) -> coverage.check(true).percentage((p) -> p >= 25));
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

	@Provide
	Arbitrary<Schedule> schedules() {
		return ScheduleArbitraries.schedules();
	}

}
