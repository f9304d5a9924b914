package dev.zklock.core;

import dev.zklock.LockRevocation;

/**
 * Told about every lock a {@link CuratorLockManager} revoked, after its holders'
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
