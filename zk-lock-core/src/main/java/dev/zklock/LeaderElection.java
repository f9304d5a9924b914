package dev.zklock;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * Leadership of roles: for each role, one instance of the application leads and
 * the others stand by in order of arrival. The role moves only when its leader
 * yields, shuts down or loses its ZooKeeper session, connection or node. Roles
 * come from {@code @Leader} methods and the
 * {@code zk-lock.leader.roles} property.
 * <p>
 * A leader's {@linkplain #fencingToken(String) fencing token} is the creation
 * zxid of its node: each leader of a role has a larger one than the one before,
 * so a resource that remembers the largest token it accepted rejects the writes
 * of a leader that lost the role without noticing (a long pause, for example).
 */
public interface LeaderElection {

	/**
	 * The roles this instance takes part in.
	 * @return the roles, sorted
	 */
	Set<String> roles();

	/**
	 * Whether this instance leads the role for sure right now: false while the
	 * connection is suspended or after a pause of this process, until ZooKeeper
	 * confirms the leader's node again.
	 * @param role a role this instance takes part in
	 * @return whether it leads
	 * @throws IllegalArgumentException when the role is not one of {@link #roles()}
	 */
	boolean isLeader(String role);

	/**
	 * The fencing token of this instance's leadership of the role.
	 * @param role a role this instance takes part in
	 * @return the token, or empty when this instance does not lead the role
	 * @throws IllegalArgumentException when the role is not one of {@link #roles()}
	 */
	Optional<FencingToken> fencingToken(String role);

	/**
	 * Wait until this instance leads the role.
	 * @param role a role this instance takes part in
	 * @param timeout the longest wait
	 * @return whether it leads the role
	 * @throws InterruptedException when the thread was interrupted while waiting
	 * @throws IllegalArgumentException when the role is not one of {@link #roles()}
	 */
	boolean awaitLeadership(String role, Duration timeout) throws InterruptedException;

	/**
	 * The owner data of the role's current leader, read from ZooKeeper: which
	 * instance leads, whichever it is.
	 * @param role any role name
	 * @return the leader node's data as text, or empty when nobody leads the role
	 * @throws LockException when ZooKeeper cannot be read
	 */
	Optional<String> currentLeader(String role);

	/**
	 * Give the role up when this instance leads it: its node is deleted, so the next
	 * candidate leads, and this instance joins the queue again at the back.
	 * @param role a role this instance takes part in
	 * @return whether this instance led the role
	 * @throws IllegalArgumentException when the role is not one of {@link #roles()}
	 */
	boolean yieldLeadership(String role);

}
