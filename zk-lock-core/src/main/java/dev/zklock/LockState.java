package dev.zklock;

/**
 * Where a lock that zk-lock tracks stands: waiting, held, in doubt, releasing or lost.
 */
public enum LockState {

	/**
	 * The thread is waiting for the lock.
	 */
	WAITING,

	/**
	 * The thread holds the lock.
	 */
	HELD,

	/**
	 * The thread held the lock when the ZooKeeper connection was suspended: it may
	 * still hold it, and holds it again if the client reconnects with the same
	 * session while the lock node still exists. Not held for
	 * {@link dev.zklock.LockContext#isHeld()}.
	 */
	IN_DOUBT,

	/**
	 * The thread held the lock, but the session ended or the lock node is gone:
	 * another process may hold the lock now. Final until the thread closes its
	 * handle.
	 */
	LOST,

	/**
	 * The thread released the lock, but its node is not confirmed deleted yet:
	 * Curator keeps deleting it in the background, and the entry goes away once the
	 * node or its session is gone.
	 */
	RELEASING

}
