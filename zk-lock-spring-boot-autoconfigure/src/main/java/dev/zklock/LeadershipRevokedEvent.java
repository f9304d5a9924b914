package dev.zklock;

/**
 * Published when this instance stops leading a role that it was granted: it gave
 * the role up, is shutting down, or lost its connection, session or node. Work
 * started on the matching {@link LeadershipGrantedEvent} must stop; a resource
 * that checks fencing tokens rejects its late writes. Listeners should be quick.
 */
public class LeadershipRevokedEvent extends LeadershipEvent {

	private static final long serialVersionUID = 1L;

	private final LeadershipRevocationReason reason;

	/**
	 * Create a new event.
	 * @param source the leader election
	 * @param role the role
	 * @param fencingToken the fencing token of the leadership that ended
	 * @param reason why it ended
	 */
	public LeadershipRevokedEvent(Object source, String role, long fencingToken, LeadershipRevocationReason reason) {
		super(source, role, fencingToken);
		this.reason = reason;
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
		return "LeadershipRevokedEvent[role=" + getRole() + ", fencingToken=" + getFencingToken() + ", reason="
				+ this.reason + "]";
	}

}
