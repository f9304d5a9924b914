package dev.zklock.schedules;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.History.CycleMember;
import dev.zklock.schedules.History.DeadlockFailure;
import dev.zklock.schedules.History.Hold;
import dev.zklock.schedules.History.NestedWait;
import dev.zklock.schedules.HistoryChecker.Violation;
import dev.zklock.schedules.Schedule.FaultKind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker's deadlock rules ({@link DeadlockChecks}) on hand-made histories: step
 * 1 of client 0 (thread {@code a}) holds {@code x} and waits for {@code y}, step 2 of
 * client 1 (thread {@code b}) holds {@code y} and waits for {@code x}. The clients'
 * {@code after} is {@value #AFTER} ms, so a cycle may stand 1,500 ms; the notice is
 * 500 ms. Times are in milliseconds here, nanoseconds in the record.
 */
class HistoryCheckerDeadlockTests {

	private static final long AFTER = 500;

	private final HistoryChecker checker = new HistoryChecker(Duration.ofMillis(500), Duration.ofMillis(1_500), 2,
			Duration.ofMillis(500));

	private final History history = new History();

	private static final List<CycleMember> MEMBERS = List.of(new CycleMember(7, "a", "m/y"),
			new CycleMember(7, "b", "m/x"));

	@Test
	void theClientsLookForDeadlocksAfterWhatTheseTestsAssume() {
		assertThat(ScheduleClient.DEADLOCK_AFTER).isEqualTo(Duration.ofMillis(AFTER));
	}

	@Test
	void aCycleBrokenByOneVictimWithinAfterAndASecondPasses() {
		cycle(1_000, LockMode.MUTEX, LockMode.MUTEX);
		this.history.deadlockFailure(new DeadlockFailure(1, 0, "m/y", ms(1_000), MEMBERS));
		assertThat(kinds()).isEmpty();
		assertThat(this.checker.deadlocks(this.history).cycles()).singleElement()
			.satisfies((cycle) -> assertThat(cycle.members()).containsExactlyInAnyOrder(1, 2))
			.satisfies((cycle) -> assertThat(cycle.millis()).isEqualTo(700));
	}

	@Test
	void aCycleThatStandsLongerThanAfterAndASecondIsFlagged() {
		cycle(1_850, LockMode.MUTEX, LockMode.MUTEX);
		assertThat(kinds()).containsExactly("deadlock unbroken");
	}

	@Test
	void aCycleJustWithinTheBoundPasses() {
		cycle(1_750, LockMode.MUTEX, LockMode.MUTEX);
		assertThat(kinds()).isEmpty();
	}

	@Test
	void aFaultOfAMembersClientExcusesACycleThatStands() {
		cycle(3_300, LockMode.MUTEX, LockMode.MUTEX);
		this.history.fault(new History.Fault(FaultKind.DROP, 1, ms(1_000), ms(1_000), true));
		assertThat(kinds()).isEmpty();
	}

	@Test
	void aFaultOfAnotherClientIsNoExcuse() {
		cycle(3_300, LockMode.MUTEX, LockMode.MUTEX);
		this.history.fault(new History.Fault(FaultKind.DROP, 2, ms(1_000), ms(1_000), true));
		assertThat(kinds()).containsExactly("deadlock unbroken");
	}

	@Test
	void aDeadlockExceptionWithoutACycleIsFlagged() {
		// step 2 holds y, and never waits for x
		this.history.hold(hold(1, "x", LockMode.MUTEX, 10, 0, 1_000));
		this.history.nestedWait(new NestedWait(1, 0, 7, "a", "m/y", LockMode.MUTEX, ms(300), ms(1_000), false));
		this.history.hold(hold(2, "y", LockMode.MUTEX, 20, 0, 1_100));
		this.history.deadlockFailure(new DeadlockFailure(1, 0, "m/y", ms(1_000), MEMBERS));
		assertThat(kinds()).containsExactly("deadlock without a cycle");
	}

	@Test
	void aFaultOfAReportedMembersClientExcusesAnExceptionTheHistoryCannotShow() {
		// step 2's client took its session for expired and saw its hold of y lost; the server kept the node
		this.history.hold(hold(1, "x", LockMode.MUTEX, 10, 0, 1_000));
		this.history.nestedWait(new NestedWait(1, 0, 7, "a", "m/y", LockMode.MUTEX, ms(300), ms(1_000), false));
		this.history.hold(new Hold(2, 1, "m", "y", LockMode.MUTEX, 1, 20, 0, ms(400), true, "SESSION_LOST", true));
		this.history.nestedWait(new NestedWait(2, 1, 7, "b", "m/x", LockMode.MUTEX, ms(300), ms(1_050), true));
		this.history.hold(hold(2, "x", LockMode.MUTEX, 11, 1_050, 1_100));
		this.history.deadlockFailure(new DeadlockFailure(1, 0, "m/y", ms(1_000), MEMBERS));
		assertThat(kinds()).containsExactly("deadlock without a cycle");
		this.history.fault(new History.Fault(FaultKind.EXPIRE_ON_CLIENT, 1, ms(390), ms(390), true));
		assertThat(kinds()).isEmpty();
	}

	@Test
	void aMemberWhoseWaitEndedWithinTheNoticeStillMakesTheCycle() {
		// step 2 timed out on x 400 ms before step 1 had its exception: the verdict may have come before that; 600 ms is
		// longer than the notice
		waitsAndHolds(1_000, 400);
		assertThat(kinds()).isEmpty();
	}

	@Test
	void aMemberWhoseWaitEndedBeforeTheNoticeMakesNoCycle() {
		waitsAndHolds(1_000, 600);
		assertThat(kinds()).containsExactly("deadlock without a cycle");
	}

	@Test
	void readersOfOneKeyMakeNoCycle() {
		// step 1 holds READ x and step 2 waits for READ x: no edge from 2 to 1
		this.history.hold(new Hold(1, 0, "rw", "x", LockMode.READ, 1, 10, 0, ms(1_000), false, null, true));
		this.history.nestedWait(new NestedWait(1, 0, 7, "a", "rw/y", LockMode.WRITE, ms(300), ms(1_000), false));
		this.history.hold(new Hold(2, 1, "rw", "y", LockMode.WRITE, 1, 20, 0, ms(1_100), false, null, true));
		this.history.nestedWait(new NestedWait(2, 1, 7, "b", "rw/x", LockMode.READ, ms(300), ms(1_050), true));
		this.history.deadlockFailure(new DeadlockFailure(1, 0, "rw/y", ms(1_000),
				List.of(new CycleMember(7, "a", "rw/y"), new CycleMember(7, "b", "rw/x"))));
		assertThat(kinds()).containsExactly("deadlock without a cycle");
		assertThat(this.checker.deadlocks(this.history).cycles()).isEmpty();
	}

	@Test
	void aReadInsideAWriteAgainstAWriteIsACycle() {
		cycle(1_000, LockMode.READ, LockMode.WRITE);
		this.history.deadlockFailure(new DeadlockFailure(1, 0, "m/y", ms(1_000), MEMBERS));
		assertThat(kinds()).isEmpty();
	}

	@Test
	void twoVictimsOfOneCycleAreFlagged() {
		cycle(1_000, LockMode.MUTEX, LockMode.MUTEX);
		this.history.deadlockFailure(new DeadlockFailure(1, 0, "m/y", ms(1_000), MEMBERS));
		this.history.deadlockFailure(new DeadlockFailure(2, 1, "m/x", ms(1_010), List.of(MEMBERS.get(1), MEMBERS.get(0))));
		assertThat(kinds()).containsExactly("two victims of one cycle");
	}

	@Test
	void victimsOfTwoCyclesOfOtherMembersAreNotTwoVictims() {
		cycle(1_000, LockMode.MUTEX, LockMode.MUTEX);
		this.history.deadlockFailure(new DeadlockFailure(1, 0, "m/y", ms(1_000), MEMBERS));
		// another ring of other threads on other keys, broken at the same time
		this.history.hold(hold(3, "u", LockMode.MUTEX, 30, 0, 1_000));
		this.history.nestedWait(new NestedWait(3, 2, 7, "c", "m/v", LockMode.MUTEX, ms(300), ms(1_010), false));
		this.history.hold(hold(4, "v", LockMode.MUTEX, 40, 0, 1_100));
		this.history.nestedWait(new NestedWait(4, 2, 7, "d", "m/u", LockMode.MUTEX, ms(300), ms(1_050), true));
		this.history.hold(hold(4, "u", LockMode.MUTEX, 41, 1_050, 1_100));
		this.history.deadlockFailure(new DeadlockFailure(3, 2, "m/v", ms(1_010),
				List.of(new CycleMember(7, "c", "m/v"), new CycleMember(7, "d", "m/u"))));
		assertThat(kinds()).isEmpty();
	}

	// Step 1 holds x and waits for y from 300 ms until `brokenAt`, in `innerMode`; step 2 holds y in `outerMode` of
	// the other step's lock and waits for x, granted 50 ms after step 1 let go
	private void cycle(long brokenAt, LockMode innerMode, LockMode otherMode) {
		LockMode outer = (innerMode == LockMode.MUTEX) ? LockMode.MUTEX : LockMode.WRITE;
		this.history.hold(hold(1, "x", outer, 10, 0, brokenAt));
		this.history.nestedWait(new NestedWait(1, 0, 7, "a", "m/y", innerMode, ms(300), ms(brokenAt), false));
		this.history.hold(hold(2, "y", (otherMode == LockMode.MUTEX) ? LockMode.MUTEX : LockMode.WRITE, 20, 0,
				brokenAt + 100));
		this.history.nestedWait(new NestedWait(2, 1, 7, "b", "m/x", otherMode, ms(300), ms(brokenAt + 50), true));
		this.history.hold(hold(2, "x", otherMode, 11, brokenAt + 50, brokenAt + 100));
	}

	// as cycle(), but step 2's wait for x ends `before` ms before step 1's exception at `at`, without the lock
	private void waitsAndHolds(long at, long before) {
		this.history.hold(hold(1, "x", LockMode.MUTEX, 10, 0, at));
		this.history.nestedWait(new NestedWait(1, 0, 7, "a", "m/y", LockMode.MUTEX, ms(300), ms(at), false));
		this.history.hold(hold(2, "y", LockMode.MUTEX, 20, 0, at + 100));
		this.history.nestedWait(new NestedWait(2, 1, 7, "b", "m/x", LockMode.MUTEX, ms(300), ms(at - before), false));
		this.history.deadlockFailure(new DeadlockFailure(1, 0, "m/y", ms(at), MEMBERS));
	}

	private static Hold hold(int chain, String key, LockMode mode, long token, long start, long end) {
		return new Hold(chain, chain - 1, "m", key, mode, 1, token, ms(start), ms(end), false, null, true);
	}

	private List<String> kinds() {
		return this.checker.check(this.history).stream().map(Violation::kind).toList();
	}

	private static long ms(long millis) {
		return TimeUnit.MILLISECONDS.toNanos(millis);
	}

}
