package dev.zklock.autoconfigure;

import java.time.Duration;

/**
 * Checks {@code zk-lock.deadlock-detection.*} at startup, so that a value the
 * engine would refuse names its property instead of failing the lock manager
 * bean.
 */
final class DeadlockDetectionPropertiesValidator {

	private static final String AFTER = "zk-lock.deadlock-detection.after";

	private static final String HISTORY = "zk-lock.deadlock-detection.history";

	private DeadlockDetectionPropertiesValidator() {
	}

	static void validate(ZkLockProperties.DeadlockDetection deadlockDetection) {
		Duration after = deadlockDetection.getAfter();
		if (after == null || after.isZero() || after.isNegative()) {
			throw new InvalidZkLockPropertyException(AFTER, ZkLockPropertiesValidator.format(after),
					"it must be positive", "Set '" + AFTER + "' to a duration such as 1s, or set "
							+ "'zk-lock.deadlock-detection.enabled=false' to turn deadlock detection off.");
		}
		int history = deadlockDetection.getHistory();
		if (history < 0) {
			throw new InvalidZkLockPropertyException(HISTORY, Integer.toString(history), "it must not be negative",
					"Set '" + HISTORY + "' to how many deadlocks the locks endpoint shows, such as 10, or to 0 to "
							+ "show none.");
		}
	}

}
