package dev.zklock.testsupport;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Polls a condition until it holds or a deadline passes. The fixtures use it instead of
 * Awaitility so that they need nothing beyond ZooKeeper and Testcontainers.
 */
final class Poll {

	private static final long INTERVAL_MILLIS = 50;

	private Poll() {
	}

	/**
	 * Wait until {@code condition} holds.
	 * @param what what is awaited, for the error message
	 * @param timeout the longest wait
	 * @param condition the condition
	 * @param diagnostics extra text for the error message, such as a log tail
	 * @throws IllegalStateException when the deadline passes first
	 */
	static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> diagnostics) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("Timed out after " + timeout.toMillis() + " ms waiting for " + what
						+ ". " + diagnostics.get());
			}
			try {
				Thread.sleep(INTERVAL_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for " + what, ex);
			}
		}
	}

}
