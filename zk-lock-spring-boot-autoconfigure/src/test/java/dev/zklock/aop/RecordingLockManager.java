package dev.zklock.aop;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockManager;

/**
 * Passes requests to a real lock manager and remembers them, so tests can see
 * the names and keys the interceptor asked for.
 */
final class RecordingLockManager implements LockManager {

	private final LockManager delegate;

	private final List<LockRequest> requests = new CopyOnWriteArrayList<>();

	RecordingLockManager(LockManager delegate) {
		this.delegate = delegate;
	}

	@Override
	public LockHandle acquire(LockRequest request) {
		this.requests.add(request);
		return this.delegate.acquire(request);
	}

	List<LockRequest> requests() {
		return this.requests;
	}

	LockRequest last() {
		return this.requests.get(this.requests.size() - 1);
	}

	void clear() {
		this.requests.clear();
	}

}
