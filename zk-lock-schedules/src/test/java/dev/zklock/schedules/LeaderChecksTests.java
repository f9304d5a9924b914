package dev.zklock.schedules;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.zklock.schedules.History.Candidacy;
import dev.zklock.schedules.History.Fault;
import dev.zklock.schedules.History.Term;
import dev.zklock.schedules.History.Write;
import dev.zklock.schedules.HistoryChecker.Violation;
import dev.zklock.schedules.Schedule.FaultKind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker's leadership rules on hand-made histories: each is broken once, and a
 * history that keeps it passes. Times are in milliseconds here, nanoseconds in the
 * record.
 */
class LeaderChecksTests {

	private final HistoryChecker checker = new HistoryChecker(Duration.ofMillis(500), Duration.ofMillis(1_500), 2,
			Duration.ofMillis(500));

	private final History history = new History();

	@Test
	void leadersInTurnWithAYieldAndGrowingTokensKeepEveryPromise() {
		this.history.candidacy(new Candidacy(1, "r", ms(0), ms(3_000)));
		this.history.term(term(0, 10, 0, 1_000, "YIELDED"));
		this.history.term(term(1, 11, 1_010, 2_000, "YIELDED"));
		this.history.write(leaderWrite(1, 10, 500, true));
		this.history.write(leaderWrite(2, 11, 1_500, true));
		this.history.write(leaderWrite(1, 10, 1_600, false));
		assertThat(kinds()).isEmpty();
	}

	@Test
	void twoClientsThatBothLeadBeyondTheNoticeAreFlagged() {
		this.history.term(term(0, 10, 0, 1_000, "CONNECTION_LOST"));
		this.history.term(term(1, 11, 300, 2_000, "YIELDED"));
		assertThat(kinds()).containsExactly("two leaders");
	}

	@Test
	void anOverlapWithinTheNoticeOrAfterAFaultOfTheFirstLeaderPasses() {
		this.history.term(term(0, 10, 0, 1_000, "CONNECTION_LOST"));
		this.history.term(term(1, 11, 600, 2_000, "SHUTDOWN"));
		this.history.fault(new Fault(FaultKind.EXPIRE, 0, ms(550), ms(550), true));
		assertThat(kinds()).isEmpty();
		this.history.term(term(2, 12, 1_700, 2_500, "SHUTDOWN"));
		assertThat(kinds()).as("300 ms of two leaders, within the notice").isEmpty();
	}

	@Test
	void theControlThatKeepsLeadingAfterAYieldIsFlagged() {
		this.history.term(term(0, 10, 0, 1_000, "YIELDED"));
		this.history.term(term(0, 10, 1_000, 2_000, LeaderSteps.KEPT));
		this.history.term(term(1, 11, 1_010, 3_000, "SHUTDOWN"));
		assertThat(kinds()).containsExactly("two leaders");
	}

	@Test
	void aStaleLeadersWriteThatIsAcceptedIsFlagged() {
		this.history.term(term(0, 10, 0, 1_000, "CONNECTION_LOST"));
		this.history.term(term(1, 11, 1_000, 2_000, "SHUTDOWN"));
		this.history.write(leaderWrite(2, 11, 1_100, true));
		this.history.write(leaderWrite(1, 10, 1_200, true));
		assertThat(kinds()).containsExactly("stale leader write");
	}

	@Test
	void aYieldThatLeavesAWaitingCandidateWithoutALeaderIsFlagged() {
		this.history.candidacy(new Candidacy(1, "r", ms(0), ms(4_000)));
		this.history.term(term(0, 10, 0, 1_000, "YIELDED"));
		this.history.term(term(1, 11, 2_600, 3_000, "SHUTDOWN"));
		assertThat(kinds()).containsExactly("leaderless after yield");
	}

	@Test
	void aYieldWithNobodyEligibleOrDuringAFaultLeavesTheRoleWithoutALeaderRightly() {
		this.history.candidacy(new Candidacy(1, "r", ms(0), ms(1_200)));
		this.history.term(term(0, 10, 0, 1_000, "YIELDED"));
		assertThat(kinds()).as("the candidate left within the election's time").isEmpty();
		this.history.candidacy(new Candidacy(2, "r", ms(0), ms(4_000)));
		assertThat(kinds()).containsExactly("leaderless after yield");
		this.history.fault(new Fault(FaultKind.SERVER_RESTART, -1, ms(1_100), ms(1_300), true));
		assertThat(kinds()).isEmpty();
	}

	private List<String> kinds() {
		return this.checker.check(this.history).stream().map(Violation::kind).toList();
	}

	private static Term term(int client, long token, long start, long end, String reason) {
		return new Term(client, "r", token, ms(start), ms(end), reason);
	}

	private static Write leaderWrite(int chain, long token, long at, boolean accepted) {
		return new Write(chain, LeaderSteps.LOCK_KEY, token, ms(at), accepted);
	}

	private static long ms(long millis) {
		return TimeUnit.MILLISECONDS.toNanos(millis);
	}

}
