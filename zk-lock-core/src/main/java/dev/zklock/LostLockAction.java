package dev.zklock;

/**
 * What happens when a {@code @DistributedLock} method or a
 * {@link LockTemplate#execute(LockRequest, LockCallback) LockTemplate callback}
 * returns normally although its lock was lost or is in doubt.
 */
public enum LostLockAction {

	/**
	 * Release the lock and throw a {@link LockLostException} instead of returning
	 * the result, so that a surrounding transaction rolls back.
	 */
	THROW,

	/**
	 * Release the lock, log a warning and return the result.
	 */
	LOG

}
