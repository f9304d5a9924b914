package dev.zklock.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Figures a benchmark measures itself (in an iteration teardown) and hands to
 * {@link ZooKeeperOpsProfiler}, which adds them to the JMH results as secondary
 * metrics of that iteration.
 */
final class IterationMetrics {

	private static final Queue<ScalarResult> pending = new ConcurrentLinkedQueue<>();

	private IterationMetrics() {
	}

	/**
	 * Add a figure averaged over the measured iterations.
	 * @param label the metric name
	 * @param value the value
	 * @param unit the unit
	 */
	static void publish(String label, double value, String unit) {
		pending.add(new ScalarResult(label, value, unit, AggregationPolicy.AVG));
	}

	/**
	 * Add a figure of which the largest over the measured iterations is kept.
	 * @param label the metric name
	 * @param value the value
	 * @param unit the unit
	 */
	static void publishMax(String label, double value, String unit) {
		pending.add(new ScalarResult(label, value, unit, AggregationPolicy.MAX));
	}

	/**
	 * Add a figure summed over the measured iterations. Use it for figures that
	 * only some iterations publish: JMH averages over every iteration.
	 * @param label the metric name
	 * @param value the value
	 * @param unit the unit
	 */
	static void publishSum(String label, double value, String unit) {
		pending.add(new ScalarResult(label, value, unit, AggregationPolicy.SUM));
	}

	/**
	 * Take every figure published since the last call.
	 * @return the figures
	 */
	static List<ScalarResult> drain() {
		List<ScalarResult> results = new ArrayList<>();
		for (ScalarResult result = pending.poll(); result != null; result = pending.poll()) {
			results.add(result);
		}
		return results;
	}

}
