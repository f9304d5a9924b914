package dev.zklock;

/**
 * Why this instance stopped leading a role.
 */
public enum LeadershipRevocationReason {

	/**
	 * The instance gave the role up through
	 * {@link LeaderElection#yieldLeadership(String)}, and joined the queue again at
	 * the back; or it stood aside because the application stopped accepting traffic
	 * or a health group it follows stayed down, and joins again once that is over.
	 * The node goes once the running {@code @Leader} methods have returned.
	 */
	YIELDED,

	/**
	 * The application is shutting down; its node was deleted so that the next
	 * candidate leads at once.
	 */
	SHUTDOWN,

	/**
	 * The ZooKeeper connection was suspended while
	 * {@code zk-lock.connection-loss-policy} is {@code SUSPENDED}: another instance
	 * may lead once this session expires.
	 */
	CONNECTION_SUSPENDED,

	/**
	 * Curator reported the connection {@code LOST}: the session expired, or the
	 * connection stayed down longer than the session timeout.
	 */
	CONNECTION_LOST,

	/**
	 * The client reconnected with a new session, or the leader's node was found to
	 * belong to an ended session, without Curator reporting the session
	 * {@code LOST} first. Curator reports {@code LOST} before a new session, so an
	 * expired session is normally revoked as {@link #CONNECTION_SUSPENDED} (under the
	 * {@code SUSPENDED} policy) or {@link #CONNECTION_LOST}; this reason is a safety
	 * net.
	 */
	SESSION_EXPIRED,

	/**
	 * The leader's node was deleted while its session lived on, for example by an
	 * operator: the leader watches its node, so it learns this within a round trip.
	 * Also when the node is found gone after a reconnection with the same session or
	 * after a pause.
	 */
	NODE_DELETED

}
