package dev.zklock;

import java.time.Instant;

/**
 * Published when this instance becomes the leader of a role. Long-running work
 * that only the leader does starts here and stops on the matching
 * {@link LeadershipRevokedEvent}. Published on zk-lock's asynchronous executor;
 * listeners should be quick.
 */
public class LeadershipGrantedEvent extends LeadershipEvent {

	private static final long serialVersionUID = 1L;

	private final Instant grantedAt;

	/**
	 * Create a new event.
	 * @param source the leader election
	 * @param role the role
	 * @param fencingToken the leadership's fencing token: the creation zxid of the
	 * leader's node
	 * @param grantedAt when the leadership was granted
	 */
	public LeadershipGrantedEvent(Object source, String role, long fencingToken, Instant grantedAt) {
		super(source, role, fencingToken);
		this.grantedAt = grantedAt;
	}

	/**
	 * When the leadership was granted.
	 * @return the instant
	 */
	public Instant getGrantedAt() {
		return this.grantedAt;
	}

	@Override
	public String toString() {
		return "LeadershipGrantedEvent[role=" + getRole() + ", fencingToken=" + getFencingToken() + "]";
	}

}
