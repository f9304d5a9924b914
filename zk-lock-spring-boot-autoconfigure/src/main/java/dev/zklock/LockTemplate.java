package dev.zklock;

import dev.zklock.core.LockManager;

/**
 * Programmatic access to distributed locks, with the same semantics as
 * {@link dev.zklock.annotation.DistributedLock}.
 */
public class LockTemplate {

	private final LockManager lockManager;

	/**
	 * Create a new template.
	 * @param lockManager the manager that talks to ZooKeeper
	 */
	public LockTemplate(LockManager lockManager) {
		this.lockManager = lockManager;
	}

	/**
	 * Run the callback while holding the request's lock.
	 * @param <T> the result type
	 * @param request what to lock
	 * @param callback the work
	 * @return the callback's result
	 * @throws LockTimeoutException when the lock was not acquired in time
	 */
	public <T> T execute(LockRequest request, LockCallback<T> callback) {
		throw new UnsupportedOperationException("TODO");
	}

	/**
	 * Try to acquire the request's lock, for use in try-with-resources. Check
	 * {@link LockHandle#isAcquired()} before doing the guarded work.
	 * @param request what to lock
	 * @return the handle
	 */
	public LockHandle tryAcquire(LockRequest request) {
		return this.lockManager.acquire(request);
	}

}
