package dev.zklock.schedules;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.annotation.LockMode;
import dev.zklock.core.DeadlockDetectionSettings;
import dev.zklock.schedules.History.Outcome;
import dev.zklock.schedules.HistoryChecker.Violation;
import dev.zklock.schedules.Schedule.Acquire;
import dev.zklock.schedules.Schedule.Family;
import dev.zklock.schedules.Schedule.FaultKind;
import dev.zklock.schedules.Schedule.FaultStep;
import dev.zklock.schedules.Schedule.Nested;
import dev.zklock.schedules.Schedule.Lead;
import dev.zklock.schedules.Schedule.LeadExit;
import dev.zklock.schedules.Schedule.Nesting;
import dev.zklock.schedules.Schedule.Step;
import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker's own control, run in every build: the same schedule with holders that
 * never ask whether their session still owns their node (they trust the grant until
 * they release) must be flagged, and with the engine's own holders it must pass. A
 * holder takes a key; its session ends under it, by the server or by a connection
 * swallowed past the session; another client waits for the key meanwhile. With local
 * hand-off, another worker of the holder's client waits in its local queue too: the
 * session's end must end the tenure for both. And for deadlock detection (#42): two
 * clients nest two keys in opposite orders; a detection switched off, and one whose
 * every member of a cycle fails ({@link SecondVictims}), must be flagged, and the
 * engine's own must pass.
 */
class UnsafeControlTests {

	@RegisterExtension
	static final ClassFixture<InJvmZooKeeper> server = ClassFixture.of(ScheduleRunner::startServer);

	@ParameterizedTest
	@CsvSource({ "EXPIRE, false", "BLACKHOLE_PAST_SESSION, false", "EXPIRE, true" })
	void holdersThatTrustTheirGrantAreFlagged(FaultKind fault, boolean localHandoff) throws Exception {
		History history = new ScheduleRunner(server.get(), true).run(sessionEndsUnderAHolder(fault, localHandoff));
		assertThat(history.ops()).as("the holder's grant, before the fault")
			.anyMatch((op) -> op.id() == 0 && op.outcome() == Outcome.GRANTED);
		assertThat(RandomScheduleTests.checker.check(history)).extracting(Violation::kind).contains("overlap");
	}

	@ParameterizedTest
	@CsvSource({ "EXPIRE, false", "BLACKHOLE_PAST_SESSION, false", "EXPIRE, true" })
	void theEnginesHoldersPass(FaultKind fault, boolean localHandoff) throws Exception {
		History history = new ScheduleRunner(server.get(), false).run(sessionEndsUnderAHolder(fault, localHandoff));
		assertThat(history.ops()).as("the holder's grant, before the fault")
			.anyMatch((op) -> op.id() == 0 && op.outcome() == Outcome.GRANTED);
		assertThat(RandomScheduleTests.checker.check(history)).isEmpty();
	}

	// #42: the checker's controls of deadlock detection. Two clients nest x and y in opposite orders; with detection
	// off the cycle stands until the timeouts break it; with every member a victim, the cycle has two
	@Test
	void aDetectionThatNeverDetectsIsFlagged() throws Exception {
		History history = new ScheduleRunner(server.get(), false)
			.withClients((client) -> client.manager.setDeadlockDetection(new DeadlockDetectionSettings(false,
					ScheduleClient.DEADLOCK_AFTER, DeadlockDetectionSettings.DEFAULTS.history(), null)))
			.run(oppositeOrders(LockMode.MUTEX, LockMode.MUTEX));
		assertThat(RandomScheduleTests.checker.deadlocks(history).cycles()).as("the cycle formed").isNotEmpty();
		assertThat(history.deadlockFailures()).isEmpty();
		assertThat(logged(oppositeOrders(LockMode.MUTEX, LockMode.MUTEX), history)).extracting(Violation::kind)
			.containsExactly("deadlock unbroken");
	}

	@Test
	void aDetectionThatPicksTwoVictimsIsFlagged() throws Exception {
		SecondVictims control = new SecondVictims();
		History history = new ScheduleRunner(server.get(), false)
			.withClients((client) -> client.secondVictims = control)
			.run(oppositeOrders(LockMode.MUTEX, LockMode.MUTEX));
		assertThat(history.deadlockFailures()).as("the engine's victim and the control's").hasSize(2);
		assertThat(logged(oppositeOrders(LockMode.MUTEX, LockMode.MUTEX), history)).extracting(Violation::kind)
			.containsExactly("two victims of one cycle");
	}

	@ParameterizedTest
	@CsvSource({ "MUTEX, MUTEX", "WRITE, WRITE", "WRITE, READ" })
	void theEnginesDetectionPasses(LockMode outer, LockMode inner) throws Exception {
		History history = new ScheduleRunner(server.get(), false).run(oppositeOrders(outer, inner));
		assertThat(RandomScheduleTests.checker.deadlocks(history).cycles()).as("the cycle formed").hasSize(1);
		assertThat(history.deadlockFailures()).as("one victim").hasSize(1);
		assertThat(logged(oppositeOrders(outer, inner), history)).isEmpty();
	}

	// the violations, logged with the run's figures as the random schedules' are: a control's are its result
	private static List<Violation> logged(Schedule schedule, History history) {
		List<Violation> violations = RandomScheduleTests.checker.check(history);
		ScheduleReport.log(schedule, history, violations);
		return violations;
	}

	// client 0 takes x then y (in `inner` mode), client 1 takes y then x; both hold their outer lock before either
	// asks for its inner one
	private static Schedule oppositeOrders(LockMode outer, LockMode inner) {
		Family family = (outer == LockMode.MUTEX) ? Family.MUTEX : Family.READ_WRITE;
		return new Schedule(List.of(
				new Step(0, 0, 0, new Nested(family, "x", outer, "y", inner, Cycles.TIMEOUT_MILLIS, 300, 50)),
				new Step(1, 0, 50, new Nested(family, "y", outer, "x", outer, Cycles.TIMEOUT_MILLIS, 300, 50))),
				List.of());
	}

	@ParameterizedTest
	@EnumSource(value = LeadExit.class, names = { "YIELD", "READINESS" })
	void aLeaderThatKeepsLeadingAfterItGaveTheRoleUpIsFlagged(LeadExit exit) throws Exception {
		History history = new ScheduleRunner(server.get(), true).run(leaderGivesUpBesideACandidate(exit));
		assertThat(history.terms()).as("the first leader's yield")
			.anyMatch((term) -> term.client() == 0 && term.reason().equals("YIELDED"));
		assertThat(RandomScheduleTests.checker.check(history)).extracting(Violation::kind).contains("two leaders");
	}

	@ParameterizedTest
	@EnumSource(value = LeadExit.class, names = { "YIELD", "READINESS" })
	void leadersThatStepDownWhenTheyGiveTheRoleUpPass(LeadExit exit) throws Exception {
		History history = new ScheduleRunner(server.get(), false).run(leaderGivesUpBesideACandidate(exit));
		assertThat(history.terms()).as("the first leader's yield, then the candidate's term")
			.anyMatch((term) -> term.client() == 0 && term.reason().equals("YIELDED"))
			.anyMatch((term) -> term.client() == 1);
		assertThat(RandomScheduleTests.checker.check(history)).isEmpty();
	}

	// client 0 leads, client 1 waits behind it; client 0 gives the role up halfway through client 1's wait
	private static Schedule leaderGivesUpBesideACandidate(LeadExit exit) {
		return new Schedule(List.of(new Step(0, LeaderSchedules.LEADER_WORKER, 0, new Lead(2_000, 500, exit, 500)),
				new Step(1, LeaderSchedules.LEADER_WORKER, 200, new Lead(4_000, 2_000, LeadExit.STAY, 0))), List.of());
	}

	// the holder holds for longer than the fault takes to end its session and let the waiter in; it waits for its
	// grant rather than trying once, which a machine loaded by other builds may answer too late
	private static Schedule sessionEndsUnderAHolder(FaultKind fault, boolean localHandoff) {
		long hold = FaultInjector.LONG_BLACKHOLE.toMillis() + 1_000;
		List<Step> steps = new ArrayList<>(List.of(new Step(0, 0, 0, mutex(5_000, hold, localHandoff)),
				new Step(1, 0, 200, mutex(hold + 2_000, 100, false))));
		if (localHandoff) {
			steps.add(new Step(0, 1, 100, mutex(hold + 2_000, 100, true)));
		}
		return new Schedule(steps, List.of(new FaultStep(fault, 0, 300)));
	}

	private static Acquire mutex(long timeoutMillis, long holdMillis, boolean localHandoff) {
		return new Acquire(Family.MUTEX, List.of("a"), LockMode.MUTEX, false, timeoutMillis, holdMillis, Nesting.NONE,
				0, 0, 0, localHandoff);
	}

}
