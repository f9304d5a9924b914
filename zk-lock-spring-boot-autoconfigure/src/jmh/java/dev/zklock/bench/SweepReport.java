package dev.zklock.bench;

import java.util.concurrent.atomic.AtomicReference;

/**
 * What the container sweep left after the many-keys run, passed from the
 * benchmark's teardown to {@link ZooKeeperOpsProfiler}.
 *
 * @param znodesLeft nodes left under the lock name, the name node included
 * @param seconds how long after the last release they were counted
 */
record SweepReport(int znodesLeft, double seconds) {

	private static final AtomicReference<SweepReport> last = new AtomicReference<>();

	static void publish(SweepReport report) {
		last.set(report);
	}

	static SweepReport take() {
		return last.getAndSet(null);
	}

}
