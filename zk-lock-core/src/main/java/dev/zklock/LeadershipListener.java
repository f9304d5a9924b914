package dev.zklock;

import java.time.Instant;

/**
 * Told when this instance begins or stops leading a role. The changes of one role
 * come in order (grant, revocation, grant, ...), on zk-lock's threads, while the
 * election holds that role's state: implementations must be quick and must not
 * throw. The Spring layer publishes them as {@code LeadershipGrantedEvent} and
 * {@code LeadershipRevokedEvent}.
 */
public interface LeadershipListener {

	/**
	 * This instance leads the role.
	 * @param role the role
	 * @param fencingToken the leadership's fencing token, larger than any earlier
	 * leader's of the role
	 * @param since when this instance saw the grant
	 */
	void granted(String role, long fencingToken, Instant since);

	/**
	 * This instance no longer leads the role.
	 * @param role the role
	 * @param fencingToken the token of the leadership that ended
	 * @param reason why it ended
	 */
	void revoked(String role, long fencingToken, LeadershipRevocationReason reason);

}
