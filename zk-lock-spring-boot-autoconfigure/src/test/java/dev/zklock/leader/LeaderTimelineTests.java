package dev.zklock.leader;

import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checks of {@link LeaderTimeline} find what they look for: the control runs
 * of the multi-process leadership tests.
 */
class LeaderTimelineTests {

	@Test
	void overlappingRunsAreFound() {
		LeaderTimeline timeline = new LeaderTimeline();
		timeline.accept("@@ run id=a token=5 start=100 end=150");
		timeline.accept("@@ run id=b token=7 start=140 end=190");
		assertThat(timeline.runProblems()).singleElement().asString().startsWith("runs overlap");
	}

	@Test
	void runsInTurnAreFine() {
		LeaderTimeline timeline = new LeaderTimeline();
		timeline.accept("@@ run id=a token=5 start=100 end=150");
		timeline.accept("@@ run id=b token=7 start=150 end=190");
		assertThat(timeline.runProblems()).isEmpty();
	}

	@Test
	void twoLeadersAtOnceAreFoundUnlessTheEarlierWasPaused() {
		LeaderTimeline timeline = new LeaderTimeline();
		timeline.accept("@@ granted id=a token=5 at=100");
		timeline.accept("@@ granted id=b token=7 at=200");
		timeline.accept("@@ revoked id=a token=5 reason=CONNECTION_SUSPENDED at=300");
		assertThat(timeline.leadershipProblems(Set.of())).singleElement().asString().startsWith("two leaders at once");
		assertThat(timeline.leadershipProblems(Set.of("a"))).isEmpty();
	}

	@Test
	void aKilledLeaderEndsWhenKilled() {
		LeaderTimeline timeline = new LeaderTimeline();
		timeline.accept("@@ granted id=a token=5 at=100");
		timeline.accept("@@ granted id=b token=7 at=200");
		assertThat(timeline.leadershipProblems(Set.of())).hasSize(1);
		timeline.killed("a", 150);
		assertThat(timeline.leadershipProblems(Set.of())).isEmpty();
	}

	@Test
	void grantsOutOfTokenOrderAreFound() {
		LeaderTimeline timeline = new LeaderTimeline();
		timeline.accept("@@ granted id=a token=9 at=100");
		timeline.accept("@@ revoked id=a token=9 reason=YIELDED at=120");
		timeline.accept("@@ granted id=b token=7 at=200");
		assertThat(timeline.leadershipProblems(Set.of()))
			.anySatisfy((problem) -> assertThat(problem).startsWith("token order"));
	}

	@Test
	void theFenceRejectsStaleTokens() {
		LeaderTimeline timeline = new LeaderTimeline();
		timeline.accept("@@ write id=a token=5");
		timeline.accept("@@ write id=b token=7");
		timeline.accept("@@ write id=a token=5 late=true");
		timeline.accept("@@ write id=b token=7");
		assertThat(timeline.acceptedWrites()).isEqualTo(3);
		assertThat(timeline.rejectedWrites()).singleElement().satisfies((write) -> assertThat(write.worker()).isEqualTo("a"));
	}

}
