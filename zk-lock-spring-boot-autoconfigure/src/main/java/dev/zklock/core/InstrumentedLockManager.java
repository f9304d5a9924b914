package dev.zklock.core;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;

/**
 * A {@link LockManager} that tells {@link LockInstrumentation}s about every
 * acquisition of the manager it decorates, and about the release of every lock it
 * hands out. A failing instrumentation is logged and otherwise ignored: it never
 * breaks the caller's lock or business call.
 */
public final class InstrumentedLockManager implements LockManager {

	private static final Logger logger = LoggerFactory.getLogger(InstrumentedLockManager.class);

	private final LockManager delegate;

	private final LockInstrumentation[] instrumentations;

	private final AtomicBoolean failureLogged = new AtomicBoolean();

	/**
	 * Create a new instrumented manager.
	 * @param delegate the manager that takes the locks
	 * @param instrumentations the instrumentations, called in order on acquisition
	 * and in reverse order on release
	 */
	public InstrumentedLockManager(LockManager delegate, List<? extends LockInstrumentation> instrumentations) {
		this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
		this.instrumentations = instrumentations.toArray(new LockInstrumentation[0]);
	}

	/**
	 * The decorated manager.
	 * @return the delegate
	 */
	public LockManager getDelegate() {
		return this.delegate;
	}

	/**
	 * The manager behind any number of {@link InstrumentedLockManager}s.
	 * @param manager a manager, possibly instrumented
	 * @return the innermost manager
	 */
	public static LockManager unwrap(LockManager manager) {
		LockManager current = manager;
		while (current instanceof InstrumentedLockManager instrumented) {
			current = instrumented.delegate;
		}
		return current;
	}

	@Override
	public LockHandle acquire(LockRequest request) {
		LockInstrumentation.Acquisition[] acquisitions = start(request);
		LockHandle handle;
		try {
			handle = this.delegate.acquire(request);
		}
		catch (RuntimeException | Error ex) {
			for (LockInstrumentation.Acquisition acquisition : acquisitions) {
				try {
					acquisition.failed(ex);
				}
				catch (RuntimeException failure) {
					instrumentationFailed(request, failure);
				}
			}
			throw ex;
		}
		if (!handle.isAcquired()) {
			for (LockInstrumentation.Acquisition acquisition : acquisitions) {
				try {
					acquisition.notAcquired();
				}
				catch (RuntimeException failure) {
					instrumentationFailed(request, failure);
				}
			}
			return handle;
		}
		for (LockInstrumentation.Acquisition acquisition : acquisitions) {
			try {
				acquisition.acquired(handle);
			}
			catch (RuntimeException failure) {
				instrumentationFailed(request, failure);
			}
		}
		return new InstrumentedLockHandle(handle, this, request, acquisitions);
	}

	private LockInstrumentation.Acquisition[] start(LockRequest request) {
		LockInstrumentation.Acquisition[] acquisitions = new LockInstrumentation.Acquisition[this.instrumentations.length];
		for (int i = 0; i < acquisitions.length; i++) {
			LockInstrumentation.Acquisition acquisition = null;
			try {
				acquisition = this.instrumentations[i].start(request);
			}
			catch (RuntimeException failure) {
				instrumentationFailed(request, failure);
			}
			acquisitions[i] = (acquisition != null) ? acquisition : NoOpAcquisition.INSTANCE;
		}
		return acquisitions;
	}

	void released(LockRequest request, LockInstrumentation.Acquisition[] acquisitions) {
		for (int i = acquisitions.length - 1; i >= 0; i--) {
			try {
				acquisitions[i].released();
			}
			catch (RuntimeException failure) {
				instrumentationFailed(request, failure);
			}
		}
	}

	// The first failure is logged with its stack trace, later ones only at debug level
	private void instrumentationFailed(LockRequest request, RuntimeException failure) {
		if (this.failureLogged.compareAndSet(false, true)) {
			logger.warn("Lock instrumentation failed for lock '{}'; the lock works, but its metrics or "
					+ "observations may be incomplete. Later failures are logged at debug level", request.name(),
					failure);
		}
		else {
			logger.debug("Lock instrumentation failed for lock '{}'", request.name(), failure);
		}
	}

	@Override
	public String toString() {
		return "InstrumentedLockManager[" + this.delegate + "]";
	}

	private static final class NoOpAcquisition implements LockInstrumentation.Acquisition {

		static final NoOpAcquisition INSTANCE = new NoOpAcquisition();

	}

}
