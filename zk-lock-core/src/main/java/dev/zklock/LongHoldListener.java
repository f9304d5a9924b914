package dev.zklock;

import java.time.Duration;

/**
 * Told about locks of this process held longer than {@code zk-lock.hold-warning},
 * once per hold. Called on the hold monitor's thread: implementations must be fast
 * and must not throw.
 */
@FunctionalInterface
public interface LongHoldListener {

	/**
	 * A lock has been held for longer than the warning threshold.
	 * @param lock the lock
	 * @param threshold the threshold it exceeded
	 */
	void heldTooLong(LockInfo lock, Duration threshold);

}
