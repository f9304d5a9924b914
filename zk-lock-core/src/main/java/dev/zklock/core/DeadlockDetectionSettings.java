package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Objects;

/**
 * How an engine looks for deadlocks among the waits of every instance: a wait that
 * has lasted {@code after} is published and looks for a cycle; a shorter one costs
 * no ZooKeeper request.
 *
 * @param enabled whether a wait past {@code after} looks for a deadlock
 * @param after how long a wait lasts before it does, positive
 * @param history how many deadlocks ended by this instance are kept to be shown,
 * not negative
 * @param applicationName the application's name in published waits, or
 * {@code null} for none
 */
public record DeadlockDetectionSettings(boolean enabled, Duration after, int history,
		@Nullable String applicationName) {

	/**
	 * Detection on, after one second, the last ten deadlocks kept, no application
	 * name.
	 */
	public static final DeadlockDetectionSettings DEFAULTS = new DeadlockDetectionSettings(true,
			Duration.ofSeconds(1), 10, null);

	/**
	 * Create new settings.
	 * @param enabled whether a wait past {@code after} looks for a deadlock
	 * @param after how long a wait lasts before it does, positive
	 * @param history how many deadlocks ended by this instance are kept, not negative
	 * @param applicationName the application's name, or {@code null}
	 */
	public DeadlockDetectionSettings {
		Objects.requireNonNull(after, "after must not be null");
		if (after.isZero() || after.isNegative()) {
			throw new IllegalArgumentException("zk-lock.deadlock-detection.after must be positive, got " + after
					+ "; set zk-lock.deadlock-detection.enabled=false to turn detection off");
		}
		if (history < 0) {
			throw new IllegalArgumentException(
					"zk-lock.deadlock-detection.history must not be negative, got " + history + "; use 0 to keep none");
		}
	}

}
