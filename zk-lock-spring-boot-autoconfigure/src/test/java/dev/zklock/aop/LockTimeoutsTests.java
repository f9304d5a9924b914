package dev.zklock.aop;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link LockTimeouts}.
 */
class LockTimeoutsTests {

	private final MockEnvironment environment = new MockEnvironment().withProperty("lock.wait", "PT2M");

	@Test
	void parsesSimpleAndIsoDurations() {
		assertThat(LockTimeouts.parse("5s", this.environment)).isEqualTo(Duration.ofSeconds(5));
		assertThat(LockTimeouts.parse("250ms", this.environment)).isEqualTo(Duration.ofMillis(250));
		assertThat(LockTimeouts.parse("PT1M", this.environment)).isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void zeroMeansTryOnceAndEmptyMeansDefault() {
		assertThat(LockTimeouts.parse("0", this.environment)).isZero();
		assertThat(LockTimeouts.parse("", this.environment)).isNull();
		assertThat(LockTimeouts.parse("${missing:}", this.environment)).isNull();
	}

	@Test
	void resolvesPlaceholdersAndTheirDefaults() {
		assertThat(LockTimeouts.parse("${lock.wait}", this.environment)).isEqualTo(Duration.ofMinutes(2));
		assertThat(LockTimeouts.parse("${missing:750ms}", this.environment)).isEqualTo(Duration.ofMillis(750));
	}

	@Test
	void rejectsWhatIsNotADuration() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockTimeouts.parse("soon", this.environment))
			.withMessageContaining("'soon' is not a duration");
		assertThatIllegalArgumentException().isThrownBy(() -> LockTimeouts.parse("-5s", this.environment))
			.withMessageContaining("negative");
		assertThatIllegalArgumentException().isThrownBy(() -> LockTimeouts.parse("${missing}", this.environment))
			.withMessageContaining("missing");
	}

	@Test
	void minHoldIsADurationWithZeroAndEmptyMeaningNone() {
		assertThat(LockTimeouts.parseMinHold("900ms", this.environment)).isEqualTo(Duration.ofMillis(900));
		assertThat(LockTimeouts.parseMinHold("${lock.wait}", this.environment)).isEqualTo(Duration.ofMinutes(2));
		assertThat(LockTimeouts.parseMinHold("0", this.environment)).isNull();
		assertThat(LockTimeouts.parseMinHold("", this.environment)).isNull();
		assertThatIllegalArgumentException().isThrownBy(() -> LockTimeouts.parseMinHold("-1s", this.environment))
			.withMessage("'-1s' is negative; give the shortest hold, such as \"30s\", or leave it empty for none");
		assertThatIllegalArgumentException().isThrownBy(() -> LockTimeouts.parseMinHold("a while", this.environment))
			.withMessage("'a while' is not a duration; use a form such as \"30s\", \"900ms\" or \"PT1M\"");
	}

}
