package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Objects;

import dev.zklock.LockHandle;
import dev.zklock.LockManager;
import dev.zklock.LockRequest;

/**
 * A {@link LockManager} that tells {@link LockInstrumentation}s about every
 * acquisition of the manager it decorates, and about the release of every lock it
 * hands out. A failing instrumentation is logged and otherwise ignored: it never
 * breaks the caller's lock or business call.
 */
public final class InstrumentedLockManager implements LockManager {

	private final LockManager delegate;

	private final Instrumentations instrumentations;

	/**
	 * Create a new instrumented manager.
	 * @param delegate the manager that takes the locks
	 * @param instrumentations the instrumentations, called in order on acquisition
	 * and in reverse order on release
	 */
	public InstrumentedLockManager(LockManager delegate, List<? extends LockInstrumentation> instrumentations) {
		this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
		this.instrumentations = new Instrumentations(instrumentations);
	}

	/**
	 * The manager behind any number of {@link InstrumentedLockManager}s.
	 * @param manager a manager, possibly instrumented
	 * @return the innermost manager
	 */
	public static @Nullable LockManager unwrap(@Nullable LockManager manager) {
		LockManager current = manager;
		while (current instanceof InstrumentedLockManager instrumented) {
			current = instrumented.delegate;
		}
		return current;
	}

	@Override
	public LockHandle acquire(LockRequest request) {
		Instrumentations.Acquisition acquisition = this.instrumentations.start(request, false);
		LockHandle handle;
		try {
			handle = this.delegate.acquire(request);
		}
		catch (RuntimeException | Error ex) {
			acquisition.failed(ex);
			throw ex;
		}
		if (!handle.isAcquired()) {
			acquisition.notAcquired();
			return handle;
		}
		acquisition.acquired(handle);
		return new InstrumentedLockHandle(handle, acquisition);
	}

	@Override
	public String toString() {
		return "InstrumentedLockManager[" + this.delegate + "]";
	}

}
