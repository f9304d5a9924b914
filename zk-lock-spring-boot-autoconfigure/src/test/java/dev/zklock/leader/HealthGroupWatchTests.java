package dev.zklock.leader;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the roles of a health group stand aside and compete again, with the poll
 * times given, and how often groups are read.
 */
class HealthGroupWatchTests {

	private static final long SECOND = 1_000_000_000L;

	private final HealthGroupWatch watch = new HealthGroupWatch(Duration.ofSeconds(5));

	@Test
	void aSpellShorterThanTheYieldAfterMovesNothing() {
		assertThat(this.watch.observe(Status.DOWN, 0)).isFalse();
		assertThat(this.watch.observe(Status.DOWN, 3 * SECOND)).isFalse();
		assertThat(this.watch.observe(Status.UP, 4 * SECOND)).isFalse();
		// a new spell starts from zero: 3 s plus 3 s is not 5 s in a row
		assertThat(this.watch.observe(Status.DOWN, 5 * SECOND)).isFalse();
		assertThat(this.watch.observe(Status.DOWN, 8 * SECOND)).isFalse();
		assertThat(this.watch.isAside()).isFalse();
	}

	@Test
	void aLongSpellStandsAsideOnceUntilUp() {
		assertThat(this.watch.observe(Status.DOWN, 0)).isFalse();
		assertThat(this.watch.observe(Status.OUT_OF_SERVICE, 4 * SECOND)).isFalse();
		assertThat(this.watch.downFor(4 * SECOND)).isEqualTo(Duration.ofSeconds(4));
		assertThat(this.watch.observe(Status.DOWN, 5 * SECOND)).isTrue();
		assertThat(this.watch.isAside()).isTrue();
		assertThat(this.watch.observe(Status.DOWN, 15 * SECOND)).isFalse();
		// only UP lets the roles compete again
		assertThat(this.watch.observe(Status.UNKNOWN, 16 * SECOND)).isFalse();
		assertThat(this.watch.isAside()).isTrue();
		assertThat(this.watch.downFor(16 * SECOND)).isZero();
		assertThat(this.watch.observe(Status.UP, 17 * SECOND)).isTrue();
		assertThat(this.watch.isAside()).isFalse();
		assertThat(this.watch.observe(Status.UP, 18 * SECOND)).isFalse();
	}

	@Test
	void aZeroYieldAfterStandsAsideAtTheFirstDown() {
		HealthGroupWatch eager = new HealthGroupWatch(Duration.ZERO);
		assertThat(eager.observe(Status.UP, 0)).isFalse();
		assertThat(eager.observe(Status.DOWN, 1)).isTrue();
	}

	@Test
	void groupsAreReadEveryTenthOfTheYieldAfterFrom100MillisecondsToOneSecond() {
		assertThat(LeadershipHealth.pollInterval(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(1));
		assertThat(LeadershipHealth.pollInterval(Duration.ofSeconds(5))).isEqualTo(Duration.ofMillis(500));
		assertThat(LeadershipHealth.pollInterval(Duration.ofMinutes(5))).isEqualTo(Duration.ofSeconds(1));
		assertThat(LeadershipHealth.pollInterval(Duration.ZERO)).isEqualTo(Duration.ofMillis(100));
	}

}
