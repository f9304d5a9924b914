package dev.zklock;

import org.springframework.context.ApplicationEvent;

/**
 * Published when this instance stops leading a role that it was granted: it gave
 * the role up, is shutting down, or lost its connection, session or node. Work
 * started on the matching {@link LeadershipGrantedEvent} must stop; a resource
 * that checks fencing tokens rejects its late writes. Listeners should be quick.
 */
public class LeadershipRevokedEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final String role;

	private final long fencingToken;

	private final LeadershipRevocationReason reason;

	/**
	 * Create a new event.
	 * @param source the leader election
	 * @param role the role
	 * @param fencingToken the fencing token of the leadership that ended
	 * @param reason why it ended
	 */
	public LeadershipRevokedEvent(Object source, String role, long fencingToken, LeadershipRevocationReason reason) {
		super(source);
		this.role = role;
		this.fencingToken = fencingToken;
		this.reason = reason;
	}

	/**
	 * The role this instance no longer leads.
	 * @return the role
	 */
	public String getRole() {
		return this.role;
	}

	/**
	 * The fencing token of the leadership that ended.
	 * @return the token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * Why the leadership ended.
	 * @return the reason
	 */
	public LeadershipRevocationReason getReason() {
		return this.reason;
	}

	@Override
	public String toString() {
		return "LeadershipRevokedEvent[role=" + this.role + ", fencingToken=" + this.fencingToken + ", reason="
				+ this.reason + "]";
	}

}
