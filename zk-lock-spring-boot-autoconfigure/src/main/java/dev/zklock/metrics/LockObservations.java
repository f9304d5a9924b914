package dev.zklock.metrics;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockContext;
import dev.zklock.LockDeadlock;
import dev.zklock.LockDeadlockException;
import dev.zklock.LockRequest;
import dev.zklock.core.LockInstrumentation;
import dev.zklock.core.LockPaths;

/**
 * One Micrometer {@link Observation} per lock use, named
 * {@value #OBSERVATION_NAME}, from the start of the wait until the lock is
 * released, so that an application with a tracing bridge gets a span per locked
 * call. For a synchronous lock the observation is in scope on the locking thread
 * meanwhile, so spans of the guarded work are its children. For an asynchronous
 * lock it is started and stopped without a scope, because the acquisition, the
 * work and the release run on different threads; its parent is the observation in
 * scope where the call was made. Its name and key values come from a
 * {@link LockObservationConvention}: the one given, else one registered with the
 * registry, else {@link DefaultLockObservationConvention} (low cardinality keys
 * {@code zk.lock.name}, {@code zk.lock.mode} and {@code zk.lock.outcome}; lock keys
 * are never added). A wait ended as a deadlock's victim gets an event
 * {@value #DEADLOCK_EVENT} whose contextual name names the cycle, edge by edge,
 * with each lock's name and key, before the observation stops with the error.
 */
public class LockObservations implements LockInstrumentation {

	/**
	 * Name of the observation.
	 */
	public static final String OBSERVATION_NAME = "zk.lock.execution";

	/**
	 * Name of the event on the victim's observation when a deadlock ended its wait.
	 */
	public static final String DEADLOCK_EVENT = "zk.lock.deadlock";

	private static final Logger logger = LoggerFactory.getLogger(LockObservations.class);

	private static final Acquisition NOT_OBSERVED = new Acquisition() {
	};

	private final ObservationRegistry registry;

	private final @Nullable LockObservationConvention convention;

	/**
	 * Create a new instance with the default convention.
	 * @param registry the registry observations are made in
	 */
	public LockObservations(ObservationRegistry registry) {
		this(registry, null);
	}

	/**
	 * Create a new instance.
	 * @param registry the registry observations are made in
	 * @param convention the convention that names the observation and its key
	 * values, or {@code null} for the default
	 */
	public LockObservations(ObservationRegistry registry, @Nullable LockObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	@Override
	public Acquisition start(LockRequest request) {
		if (this.registry.isNoop()) {
			return NOT_OBSERVED;
		}
		LockObservationContext context = new LockObservationContext(request);
		Observation observation = startObservation(context);
		return new ObservedAcquisition(context, observation, observation.openScope(), null);
	}

	@Override
	public Acquisition startAsync(LockRequest request) {
		if (this.registry.isNoop()) {
			return NOT_OBSERVED;
		}
		// What a timeout leads to is read on the calling thread: it is reported on another
		LockObservationContext context = new LockObservationContext(request);
		return new ObservedAcquisition(context, startObservation(context), null,
				LockOutcome.notAcquired(request.name()));
	}

	private Observation startObservation(LockObservationContext context) {
		return Observation
			.createNotStarted(this.convention, DefaultLockObservationConvention.INSTANCE, () -> context, this.registry)
			.start();
	}

	/**
	 * Ends the observation when the lock is released or was not acquired. An
	 * asynchronous acquisition has no scope, and knows its timeout outcome from the
	 * start. The outcome goes into the context; the convention reads it on stop.
	 */
	private static final class ObservedAcquisition implements Acquisition {

		private final LockObservationContext context;

		private final Observation observation;

		private final Observation.@Nullable Scope scope;

		private final @Nullable LockOutcome asyncTimeoutOutcome;

		ObservedAcquisition(LockObservationContext context, Observation observation, Observation.@Nullable Scope scope,
				@Nullable LockOutcome asyncTimeoutOutcome) {
			this.context = context;
			this.observation = observation;
			this.scope = scope;
			this.asyncTimeoutOutcome = asyncTimeoutOutcome;
		}

		@Override
		public void acquired(LockContext lock) {
			this.context.setOutcome(LockOutcome.ACQUIRED);
		}

		@Override
		public void notAcquired() {
			LockOutcome outcome = (this.asyncTimeoutOutcome != null) ? this.asyncTimeoutOutcome
					: LockOutcome.notAcquired(this.context.getRequest().name());
			end(outcome, null);
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

		private void end(LockOutcome outcome, @Nullable Throwable failure) {
			this.context.setOutcome(outcome);
			if (failure != null) {
				deadlockEvent(failure);
				this.observation.error(failure);
			}
			stop();
		}

		// A handler that fails on the event must not replace the caller's exception with its own
		private void deadlockEvent(Throwable failure) {
			LockDeadlock deadlock = deadlockOf(failure);
			if (deadlock == null) {
				return;
			}
			try {
				this.observation.event(Observation.Event.of(DEADLOCK_EVENT, eventText(deadlock)));
			}
			catch (RuntimeException ex) {
				logger.warn("The observation event {} failed for lock '{}' key '{}'", DEADLOCK_EVENT,
						deadlock.victimWaitsFor().name(), LockPaths.abbreviate(deadlock.victimWaitsFor().key()), ex);
			}
		}

		private static @Nullable LockDeadlock deadlockOf(Throwable failure) {
			for (Throwable current = failure; current != null; current = current.getCause()) {
				if (current instanceof LockDeadlockException deadlock) {
					return deadlock.getDeadlock();
				}
			}
			return null;
		}

		private void stop() {
			if (this.scope != null) {
				this.scope.close();
			}
			this.observation.stop();
		}

	}

	/**
	 * The text of a {@value #DEADLOCK_EVENT} event: the lock the victim waited for,
	 * then the cycle's edges on one line, as {@link LockDeadlock#describe()} words
	 * them.
	 * @param deadlock the deadlock
	 * @return the text
	 */
	static String eventText(LockDeadlock deadlock) {
		return "Deadlock on lock " + deadlock.victimWaitsFor().describe() + ", this wait ended to break the cycle: "
				+ deadlock.describe().strip().replace("\n  ", "; ");
	}

}
