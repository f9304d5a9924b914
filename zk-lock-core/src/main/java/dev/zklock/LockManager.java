package dev.zklock;

/**
 * Acquires ZooKeeper locks for {@link LockRequest}s.
 */
public interface LockManager {

	/**
	 * Try to acquire the request's lock within its timeout. A request without a
	 * timeout uses the manager's default.
	 * @param request what to lock
	 * @return a handle; {@link LockHandle#isAcquired()} is false when the timeout
	 * elapsed
	 * @throws dev.zklock.LockException when ZooKeeper fails or the thread is
	 * interrupted while waiting (the interrupt flag is kept)
	 */
	LockHandle acquire(LockRequest request);

}
