package dev.zklock.schedules;

import org.junit.jupiter.api.Test;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.History.Held;
import dev.zklock.schedules.History.Hold;
import dev.zklock.schedules.HistoryChecker.Violation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The holds a killed client process leaves: each ends where its holder's belief
 * ended, at the loss it saw before the kill, or else at the kill. Times in
 * milliseconds here, nanoseconds in the record.
 */
class OpenHoldsTests {

	private final OpenHolds open = new OpenHolds();

	@Test
	void aLossItsHolderSawBeforeTheKillEndsTheHoldThere() {
		this.open.held(new Held(hold(55, -1, false, null)));
		this.open.held(new Held(hold(55, 253, true, HeldLock.NOT_HELD)));
		assertThat(this.open.endAt(ms(1_049))).containsExactly(hold(55, 253, true, HeldLock.NOT_HELD));
		assertThat(this.open.endAt(ms(2_000))).as("none open after the kill").isEmpty();
	}

	@Test
	void aHoldStillBelievedAtTheKillEndsThere() {
		this.open.held(new Held(hold(55, -1, false, null)));
		assertThat(this.open.endAt(ms(1_049))).containsExactly(hold(55, 1_049, true, OpenHolds.KILLED));
	}

	@Test
	void aLossSeenOnlyAfterTheKillWasTakenCountsAsTheKill() {
		// the test JVM takes the kill's moment, then signals: the process may run a moment longer
		this.open.held(new Held(hold(55, -1, false, null)));
		this.open.held(new Held(hold(55, 1_052, true, "SESSION_LOST")));
		assertThat(this.open.endAt(ms(1_049))).containsExactly(hold(55, 1_049, true, OpenHolds.KILLED));
	}

	@Test
	void aHoldItsProcessRecordedIsNotEndedAgain() {
		this.open.held(new Held(hold(55, -1, false, null)));
		this.open.held(new Held(hold(55, 253, true, HeldLock.NOT_HELD)));
		this.open.recorded(hold(55, 253, true, HeldLock.NOT_HELD));
		assertThat(this.open.endAt(ms(1_049))).isEmpty();
	}

	/**
	 * The soak's seed 4660853804639219213: client 2's WRITE (from +55 ms), its session
	 * closed by the server at +101 ms, was in doubt, so not believed, from +253 ms;
	 * client 1's WRITE was held from +174 ms. The holder, a careless caller pacing to
	 * its nested READ at half its hold, had not recorded its hold when its process was
	 * killed at +1,049 ms. Ended at the loss it saw, the history keeps every promise;
	 * ended at the kill, as a holder that never saw its loss would, it is still an
	 * overlap.
	 */
	@Test
	void theSoaksKilledHolderThatSawItsLossOverlapsNobodyButOneThatNeverSawItDoes() {
		HistoryChecker checker = RandomScheduleTests.checker;
		Hold other = new Hold(1, 1, "rw", "a", LockMode.WRITE, 1, 554, ms(174), ms(2_683), false, null, true);
		this.open.held(new Held(hold(55, -1, false, null)));
		this.open.held(new Held(hold(55, 253, true, HeldLock.NOT_HELD)));
		History seen = new History();
		seen.hold(other);
		this.open.endAt(ms(1_049)).forEach(seen::hold);
		assertThat(checker.check(seen)).isEmpty();
		History unseen = new History();
		unseen.hold(other);
		this.open.held(new Held(hold(55, -1, false, null)));
		this.open.endAt(ms(1_049)).forEach(unseen::hold);
		assertThat(checker.check(unseen)).extracting(Violation::kind).containsExactly("overlap");
	}

	private static Hold hold(long start, long end, boolean lost, String reason) {
		return new Hold(0, 2, "rw", "a", LockMode.WRITE, 1, 553, ms(start), (end < 0) ? -1 : ms(end), lost, reason,
				true);
	}

	private static long ms(long millis) {
		return millis * 1_000_000;
	}

}
