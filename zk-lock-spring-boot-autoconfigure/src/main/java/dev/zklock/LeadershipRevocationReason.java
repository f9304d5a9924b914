package dev.zklock;

/**
 * Why this instance stopped leading a role.
 */
public enum LeadershipRevocationReason {

	/**
	 * The instance gave the role up through
	 * {@link LeaderElection#yieldLeadership(String)}; it joined the queue again at
	 * the back.
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
	 * belong to an ended session.
	 */
	SESSION_EXPIRED,

	/**
	 * The leader's node was deleted while its session lived on, for example by an
	 * operator.
	 */
	NODE_DELETED

}
