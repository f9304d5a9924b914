package dev.zklock;

import java.time.Instant;

import org.springframework.context.ApplicationEvent;

/**
 * Published when this instance becomes the leader of a role. Long-running work
 * that only the leader does starts here and stops on the matching
 * {@link LeadershipRevokedEvent}. Published on zk-lock's asynchronous executor;
 * listeners should be quick.
 */
public class LeadershipGrantedEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final String role;

	private final long fencingToken;

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
		super(source);
		this.role = role;
		this.fencingToken = fencingToken;
		this.grantedAt = grantedAt;
	}

	/**
	 * The role now led by this instance.
	 * @return the role
	 */
	public String getRole() {
		return this.role;
	}

	/**
	 * The fencing token of this leadership, larger than that of any earlier leader
	 * of the role.
	 * @return the token
	 */
	public long getFencingToken() {
		return this.fencingToken;
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
		return "LeadershipGrantedEvent[role=" + this.role + ", fencingToken=" + this.fencingToken + "]";
	}

}
