package dev.zklock;

/**
 * Told about every lock that zk-lock revoked (see
 * {@link LockTemplate#revoke(String, String)}), after its holders'
 * nodes were deleted: for metrics and audit.
 */
@FunctionalInterface
public interface LockRevocationListener {

	/**
	 * A lock was revoked.
	 * @param revocation what was removed, and by whom
	 */
	void lockRevoked(LockRevocation revocation);

}
