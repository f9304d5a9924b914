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

}
