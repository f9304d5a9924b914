package dev.zklock.core;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockContext;
import dev.zklock.LockRequest;

/**
 * The {@link LockInstrumentation}s of one lock manager, synchronous or
 * asynchronous: starts their acquisitions and passes each outcome on, logging
 * instead of throwing when an instrumentation fails.
 */
final class Instrumentations {

	static final Instrumentations NONE = new Instrumentations(List.of());

	private static final Logger logger = LoggerFactory.getLogger(Instrumentations.class);

	private static final LockInstrumentation.Acquisition NO_OP = new LockInstrumentation.Acquisition() {
	};

	private final LockInstrumentation[] instrumentations;

	private final AtomicBoolean failureLogged = new AtomicBoolean();

	Instrumentations(List<? extends LockInstrumentation> instrumentations) {
		this.instrumentations = instrumentations.toArray(new LockInstrumentation[0]);
	}

	boolean isEmpty() {
		return this.instrumentations.length == 0;
	}

	/**
	 * Start one acquisition in every instrumentation.
	 * @param request what is asked for
	 * @param async whether the outcome and the release may come on other threads
	 * @return the acquisition, to be told its outcome
	 */
	Acquisition start(LockRequest request, boolean async) {
		LockInstrumentation.Acquisition[] acquisitions = new LockInstrumentation.Acquisition[this.instrumentations.length];
		for (int i = 0; i < acquisitions.length; i++) {
			LockInstrumentation.Acquisition acquisition = null;
			try {
				acquisition = async ? this.instrumentations[i].startAsync(request)
						: this.instrumentations[i].start(request);
			}
			catch (RuntimeException failure) {
				logFailure(request, failure);
			}
			acquisitions[i] = (acquisition != null) ? acquisition : NO_OP;
		}
		return new Acquisition(request, acquisitions);
	}

	// The first failure is logged with its stack trace, later ones only at debug level
	private void logFailure(LockRequest request, RuntimeException failure) {
		if (this.failureLogged.compareAndSet(false, true)) {
			logger.warn("Lock instrumentation failed for lock '{}'; the lock works, but its metrics or "
					+ "observations may be incomplete. Later failures are logged at debug level", request.name(),
					failure);
		}
		else {
			logger.debug("Lock instrumentation failed for lock '{}'", request.name(), failure);
		}
	}

	/**
	 * One acquisition seen by every instrumentation. Its outcome is passed on once,
	 * the first one reported winning, and a release only after an acquisition, so
	 * racing callbacks of asynchronous locks keep the meters balanced.
	 */
	final class Acquisition {

		private static final int PENDING = 0;

		private static final int ACQUIRED = 1;

		private static final int ENDED = 2;

		private final LockRequest request;

		private final LockInstrumentation.Acquisition[] acquisitions;

		private final AtomicInteger state = new AtomicInteger(PENDING);

		private Acquisition(LockRequest request, LockInstrumentation.Acquisition[] acquisitions) {
			this.request = request;
			this.acquisitions = acquisitions;
		}

		void acquired(LockContext lock) {
			if (this.state.compareAndSet(PENDING, ACQUIRED)) {
				each(false, (acquisition) -> acquisition.acquired(lock));
			}
		}

		void notAcquired() {
			if (this.state.compareAndSet(PENDING, ENDED)) {
				each(false, LockInstrumentation.Acquisition::notAcquired);
			}
		}

		void failed(Throwable cause) {
			if (this.state.compareAndSet(PENDING, ENDED)) {
				each(false, (acquisition) -> acquisition.failed(cause));
			}
		}

		/**
		 * Report the release, in reverse order, once and only after an acquisition.
		 */
		void released() {
			if (this.state.compareAndSet(ACQUIRED, ENDED)) {
				each(true, LockInstrumentation.Acquisition::released);
			}
		}

		/**
		 * Report the release of a lock kept for its {@code minHold}, as
		 * {@link #released()} does.
		 */
		void releasedLingering(CompletionStage<Void> holdEnded) {
			if (this.state.compareAndSet(ACQUIRED, ENDED)) {
				each(true, (acquisition) -> acquisition.releasedLingering(holdEnded));
			}
		}

		private void each(boolean reverse, Consumer<LockInstrumentation.Acquisition> callback) {
			int count = this.acquisitions.length;
			for (int i = 0; i < count; i++) {
				try {
					callback.accept(this.acquisitions[reverse ? count - 1 - i : i]);
				}
				catch (RuntimeException failure) {
					logFailure(this.request, failure);
				}
			}
		}

	}

}
