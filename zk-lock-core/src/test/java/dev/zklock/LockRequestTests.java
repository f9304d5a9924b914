package dev.zklock;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The bounds a {@link LockRequest} checks when it is built: a shortest hold that is
 * not negative and not longer than the request's own cap.
 */
class LockRequestTests {

	@Test
	void theBuilderCarriesMinHold() {
		LockRequest request = LockRequest.named("job").minHold(Duration.ofMillis(900)).build();
		assertThat(request.minHold()).isEqualTo(Duration.ofMillis(900));
		assertThat(request.withTimeout(Duration.ZERO).minHold()).as("kept by withTimeout")
			.isEqualTo(Duration.ofMillis(900));
		assertThat(LockRequest.named("job").build().minHold()).isNull();
		assertThat(new LockRequest("job", List.of(), LockMode.MUTEX, 1, null, null).minHold()).isNull();
	}

	@Test
	void aNegativeMinHoldIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.named("job").minHold(Duration.ofSeconds(-1)).build())
			.withMessage("Lock 'job' minHold must not be negative, got PT-1S; leave it unset for none");
	}

	@Test
	void aMinHoldLongerThanMaxHoldIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.named("job")
				.minHold(Duration.ofSeconds(30))
				.maxHold(Duration.ofSeconds(10))
				.build())
			.withMessage("Lock 'job' minHold PT30S is longer than its maxHold PT10S: the lock would be taken away "
					+ "before it may be released; lower minHold or raise maxHold");
		// as long as the cap is fine: the hold ends at the cap, not taken away
		assertThat(LockRequest.named("job").minHold(Duration.ofSeconds(10)).maxHold(Duration.ofSeconds(10)).build()
			.minHold()).isEqualTo(Duration.ofSeconds(10));
	}

}
