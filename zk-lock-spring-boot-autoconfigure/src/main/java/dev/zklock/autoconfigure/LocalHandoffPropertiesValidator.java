package dev.zklock.autoconfigure;

import java.time.Duration;

/**
 * Checks {@code zk-lock.local-handoff.*} at startup, so that a bound the engine
 * would refuse names its property instead of failing the lock manager bean.
 */
final class LocalHandoffPropertiesValidator {

	private static final String MAX_PASSES = "zk-lock.local-handoff.max-passes";

	private static final String MAX_TIME = "zk-lock.local-handoff.max-time";

	// The engine measures the bound in nanoseconds
	private static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);

	private LocalHandoffPropertiesValidator() {
	}

	static void validate(ZkLockProperties.LocalHandoff localHandoff) {
		int maxPasses = localHandoff.getMaxPasses();
		if (maxPasses < 0) {
			throw new InvalidZkLockPropertyException(MAX_PASSES, Integer.toString(maxPasses),
					"it must not be negative", "Set '" + MAX_PASSES + "' to a number of passes such as 16, or to 0 "
							+ "to send every local waiter through ZooKeeper once another process waits.");
		}
		Duration maxTime = localHandoff.getMaxTime();
		if (maxTime == null || maxTime.isNegative() || maxTime.compareTo(LONGEST) > 0) {
			throw new InvalidZkLockPropertyException(MAX_TIME, ZkLockPropertiesValidator.format(maxTime),
					(maxTime == null || maxTime.isNegative()) ? "it must not be negative"
							: "it is longer than " + LONGEST.toDays() + " days",
					"Set '" + MAX_TIME + "' to a duration such as 50ms, or to 0 to stop passing locally as soon "
							+ "as another process waits.");
		}
	}

}
