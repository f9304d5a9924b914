package dev.zklock.core;

import java.time.Duration;

/**
 * Told about locks of this process that need attention: a lock lost while held,
 * or held longer than the configured warning threshold. Callbacks may run on
 * ZooKeeper's event thread or on a monitor thread: implementations must be fast
 * and must not throw.
 */
public interface LockEventListener {

	/**
	 * A lock this process held is no longer held in ZooKeeper, for example because
	 * the session expired.
	 * @param lock the lock as it was held
	 */
	default void lockLost(LockInfo lock) {
	}

	/**
	 * A lock has been held for longer than the warning threshold. Called once per
	 * hold.
	 * @param lock the lock
	 * @param threshold the threshold it exceeded
	 */
	default void heldTooLong(LockInfo lock, Duration threshold) {
	}

}
