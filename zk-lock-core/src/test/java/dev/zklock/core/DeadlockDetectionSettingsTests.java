package dev.zklock.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * The settings of deadlock detection: the documented defaults, and what is
 * refused, naming the property.
 */
class DeadlockDetectionSettingsTests {

	@Test
	void defaultsToOnAfterOneSecondKeepingTen() {
		DeadlockDetectionSettings defaults = DeadlockDetectionSettings.DEFAULTS;
		assertThat(defaults.enabled()).isTrue();
		assertThat(defaults.after()).isEqualTo(Duration.ofSeconds(1));
		assertThat(defaults.history()).isEqualTo(10);
		assertThat(defaults.applicationName()).isNull();
	}

	@Test
	void refusesAMarkThatIsNotPositive() {
		assertThatIllegalArgumentException().isThrownBy(() -> new DeadlockDetectionSettings(true, Duration.ZERO, 10, null))
			.withMessageContaining("zk-lock.deadlock-detection.after must be positive");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new DeadlockDetectionSettings(false, Duration.ofMillis(-1), 10, null));
		assertThatNullPointerException().isThrownBy(() -> new DeadlockDetectionSettings(true, null, 10, null));
	}

	@Test
	void refusesANegativeHistoryButKeepsNone() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new DeadlockDetectionSettings(true, Duration.ofSeconds(1), -1, null))
			.withMessageContaining("zk-lock.deadlock-detection.history");
		assertThat(new DeadlockDetectionSettings(true, Duration.ofSeconds(1), 0, "orders").history()).isZero();
	}

}
