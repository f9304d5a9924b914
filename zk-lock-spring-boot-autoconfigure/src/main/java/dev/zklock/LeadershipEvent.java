package dev.zklock;

import org.springframework.context.ApplicationEvent;

/**
 * A change of this instance's leadership of a role: a
 * {@link LeadershipGrantedEvent} or a {@link LeadershipRevokedEvent}. Listen to
 * this type to see both in order.
 */
public abstract class LeadershipEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final String role;

	private final long fencingToken;

	/**
	 * Create a new event.
	 * @param source the leader election
	 * @param role the role
	 * @param fencingToken the leadership's fencing token: the creation zxid of the
	 * leader's node
	 */
	protected LeadershipEvent(Object source, String role, long fencingToken) {
		super(source);
		this.role = role;
		this.fencingToken = fencingToken;
	}

	/**
	 * The role.
	 * @return the role
	 */
	public String getRole() {
		return this.role;
	}

	/**
	 * The fencing token of the leadership: larger than that of any earlier leader of
	 * the role.
	 * @return the token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

}
