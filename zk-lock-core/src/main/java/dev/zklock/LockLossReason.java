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
	 * example deleted by an operator while the connection was down (a deletion seen
	 * while connected is {@link #REVOKED}).
	 */
	NODE_DELETED,

	/**
	 * The application shut down while the lock was still held: zk-lock waited for it
	 * to be released for {@code spring.lifecycle.timeout-per-shutdown-phase}, then
	 * gave it up and deleted its node, so that the next waiter is not kept waiting
	 * for this process's session to end.
	 */
	SHUTDOWN,

	/**
	 * The lock was held longer than its {@code maxHold} (or {@code zk-lock.max-hold}):
	 * zk-lock deleted its node so that the lock passes on. The work that held it goes
	 * on unless interrupted.
	 */
	MAX_HOLD_EXCEEDED,

	/**
	 * The lock was revoked: another client deleted its node while this process was
	 * connected with the node's session, through the locks endpoint
	 * ({@code DELETE /actuator/locks/{name}/{key}}), {@code LockTemplate.revoke} or by
	 * hand. The next waiter gets the lock, with a higher fencing token. The holder
	 * learns it from a watch on its node, armed once a hold has lasted
	 * 50 ms (by a sweep every 25 ms), so within about 75 ms plus a round trip at
	 * worst, and one round trip once armed. A deletion found only
	 * after a reconnection is {@link #NODE_DELETED}.
	 */
	REVOKED

}
