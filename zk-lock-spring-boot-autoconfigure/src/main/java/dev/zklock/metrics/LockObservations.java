package dev.zklock.metrics;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.core.LockInstrumentation;

/**
 * One Micrometer {@link Observation} per lock use, named
 * {@value #OBSERVATION_NAME}, from the start of the wait until the lock is
 * released, so that an application with a tracing bridge gets a span per locked
 * call. The observation is in scope on the locking thread meanwhile, so spans of
 * the guarded work are its children. Its low cardinality keys are
 * {@code zk.lock.name}, {@code zk.lock.mode} and {@code zk.lock.outcome}; keys are
 * never added.
 */
public class LockObservations implements LockInstrumentation {

	/**
	 * Name of the observation.
	 */
	public static final String OBSERVATION_NAME = "zk.lock.execution";

	private static final Acquisition NOT_OBSERVED = new Acquisition() {
	};

	private final ObservationRegistry registry;

	/**
	 * Create a new instance.
	 * @param registry the registry observations are made in
	 */
	public LockObservations(ObservationRegistry registry) {
		this.registry = registry;
	}

	@Override
	public Acquisition start(LockRequest request) {
		if (this.registry.isNoop()) {
			return NOT_OBSERVED;
		}
		Observation observation = Observation.createNotStarted(OBSERVATION_NAME, this.registry)
			.contextualName("zk.lock " + request.name())
			.lowCardinalityKeyValue("zk.lock.name", request.name())
			.lowCardinalityKeyValue("zk.lock.mode", LockMetrics.tag(request.mode()))
			.start();
		return new ObservedAcquisition(request.name(), observation, observation.openScope());
	}

	/**
	 * Ends the observation when the lock is released or was not acquired.
	 */
	private static final class ObservedAcquisition implements Acquisition {

		private final String name;

		private final Observation observation;

		private final Observation.Scope scope;

		ObservedAcquisition(String name, Observation observation, Observation.Scope scope) {
			this.name = name;
			this.observation = observation;
			this.scope = scope;
		}

		@Override
		public void acquired(LockHandle handle) {
			this.observation.lowCardinalityKeyValue("zk.lock.outcome", LockOutcome.ACQUIRED.tag());
		}

		@Override
		public void notAcquired() {
			end(LockOutcome.notAcquired(this.name), null);
		}

		@Override
		public void failed(Throwable failure) {
			end(LockOutcome.failed(failure), failure);
		}

		@Override
		public void released() {
			this.scope.close();
			this.observation.stop();
		}

		private void end(LockOutcome outcome, Throwable failure) {
			this.observation.lowCardinalityKeyValue("zk.lock.outcome", outcome.tag());
			if (failure != null) {
				this.observation.error(failure);
			}
			this.scope.close();
			this.observation.stop();
		}

	}

}
