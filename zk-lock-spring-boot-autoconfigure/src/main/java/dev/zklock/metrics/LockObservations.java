package dev.zklock.metrics;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import dev.zklock.LockContext;
import dev.zklock.LockRequest;
import dev.zklock.core.LockInstrumentation;

/**
 * One Micrometer {@link Observation} per lock use, named
 * {@value #OBSERVATION_NAME}, from the start of the wait until the lock is
 * released, so that an application with a tracing bridge gets a span per locked
 * call. For a synchronous lock the observation is in scope on the locking thread
 * meanwhile, so spans of the guarded work are its children. For an asynchronous
 * lock it is started and stopped without a scope, because the acquisition, the
 * work and the release run on different threads; its parent is the observation in
 * scope where the call was made. Its low cardinality keys are
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
		Observation observation = startObservation(request);
		return new ObservedAcquisition(request.name(), observation, observation.openScope(), null);
	}

	@Override
	public Acquisition startAsync(LockRequest request) {
		if (this.registry.isNoop()) {
			return NOT_OBSERVED;
		}
		// What a timeout leads to is read on the calling thread: it is reported on another
		return new ObservedAcquisition(request.name(), startObservation(request), null,
				LockOutcome.notAcquired(request.name()));
	}

	private Observation startObservation(LockRequest request) {
		return Observation.createNotStarted(OBSERVATION_NAME, this.registry)
			.contextualName("zk.lock " + request.name())
			.lowCardinalityKeyValue("zk.lock.name", request.name())
			.lowCardinalityKeyValue("zk.lock.mode", LockMetrics.tag(request.mode()))
			.start();
	}

	/**
	 * Ends the observation when the lock is released or was not acquired. An
	 * asynchronous acquisition has no scope, and knows its timeout outcome from the
	 * start.
	 */
	private static final class ObservedAcquisition implements Acquisition {

		private final String name;

		private final Observation observation;

		private final Observation.Scope scope;

		private final LockOutcome asyncTimeoutOutcome;

		ObservedAcquisition(String name, Observation observation, Observation.Scope scope,
				LockOutcome asyncTimeoutOutcome) {
			this.name = name;
			this.observation = observation;
			this.scope = scope;
			this.asyncTimeoutOutcome = asyncTimeoutOutcome;
		}

		@Override
		public void acquired(LockContext lock) {
			this.observation.lowCardinalityKeyValue("zk.lock.outcome", LockOutcome.ACQUIRED.tag());
		}

		@Override
		public void notAcquired() {
			end((this.asyncTimeoutOutcome != null) ? this.asyncTimeoutOutcome : LockOutcome.notAcquired(this.name),
					null);
		}

		@Override
		public void failed(Throwable failure) {
			end((this.asyncTimeoutOutcome != null) ? LockOutcome.failedAsync(failure) : LockOutcome.failed(failure),
					failure);
		}

		@Override
		public void released() {
			stop();
		}

		private void end(LockOutcome outcome, Throwable failure) {
			this.observation.lowCardinalityKeyValue("zk.lock.outcome", outcome.tag());
			if (failure != null) {
				this.observation.error(failure);
			}
			stop();
		}

		private void stop() {
			if (this.scope != null) {
				this.scope.close();
			}
			this.observation.stop();
		}

	}

}
