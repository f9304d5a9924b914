package dev.zklock;

/**
 * Why a held lock was lost.
 */
public enum LockLossReason {

	/**
	 * Curator reported the session lost ({@code ConnectionState.LOST}): the session
	 * expired, or the connection stayed down longer than the session timeout.
	 */
	SESSION_LOST,

	/**
	 * The client reconnected with a new session; the lock node belonged to the old
	 * one.
	 */
	SESSION_CHANGED,

	/**
	 * The client reconnected with the same session, but the lock node was gone, for
	 * example deleted by an operator.
	 */
	NODE_DELETED,

	/**
	 * The application shut down while the lock was still held: zk-lock waited for it
	 * to be released for {@code spring.lifecycle.timeout-per-shutdown-phase}, then
	 * gave it up and deleted its node, so that the next waiter is not kept waiting
	 * for this process's session to end.
	 */
	SHUTDOWN

}
