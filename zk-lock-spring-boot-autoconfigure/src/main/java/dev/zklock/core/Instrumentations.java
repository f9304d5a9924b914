package dev.zklock.core;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

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
				for (LockInstrumentation.Acquisition acquisition : this.acquisitions) {
					try {
						acquisition.acquired(lock);
					}
					catch (RuntimeException failure) {
						logFailure(this.request, failure);
					}
				}
			}
		}

		void notAcquired() {
			if (this.state.compareAndSet(PENDING, ENDED)) {
				for (LockInstrumentation.Acquisition acquisition : this.acquisitions) {
					try {
						acquisition.notAcquired();
					}
					catch (RuntimeException failure) {
						logFailure(this.request, failure);
					}
				}
			}
		}

		void failed(Throwable cause) {
			if (this.state.compareAndSet(PENDING, ENDED)) {
				for (LockInstrumentation.Acquisition acquisition : this.acquisitions) {
					try {
						acquisition.failed(cause);
					}
					catch (RuntimeException failure) {
						logFailure(this.request, failure);
					}
				}
			}
		}

		/**
		 * Report the release, in reverse order, once and only after an acquisition.
		 */
		void released() {
			if (this.state.compareAndSet(ACQUIRED, ENDED)) {
				for (int i = this.acquisitions.length - 1; i >= 0; i--) {
					try {
						this.acquisitions[i].released();
					}
					catch (RuntimeException failure) {
						logFailure(this.request, failure);
					}
				}
			}
		}

	}

}
