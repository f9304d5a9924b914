package dev.zklock.metrics;

import java.util.Objects;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import dev.zklock.LockRequest;

/**
 * The {@link Observation.Context} of one lock use, from the start of the wait until
 * the release: the request, then what became of it. A
 * {@link LockObservationConvention} turns it into key values.
 */
public class LockObservationContext extends Observation.Context {

	private final LockRequest request;

	private @Nullable LockOutcome outcome;

	/**
	 * Create a context for one request.
	 * @param request the lock request
	 */
	public LockObservationContext(LockRequest request) {
		this.request = Objects.requireNonNull(request, "request must not be null");
	}

	/**
	 * Return the lock request: its name, keys, mode and timeout.
	 * @return the request
	 */
	public LockRequest getRequest() {
		return this.request;
	}

	/**
	 * Return what became of the acquisition.
	 * @return the outcome, or {@code null} while the lock is still awaited
	 */
	public @Nullable LockOutcome getOutcome() {
		return this.outcome;
	}

	/**
	 * Set what became of the acquisition.
	 * @param outcome the outcome
	 */
	public void setOutcome(@Nullable LockOutcome outcome) {
		this.outcome = outcome;
	}

}
