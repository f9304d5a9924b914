package dev.zklock.bench;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * The cycle times and caller-thread CPU times of an interleaved benchmark, by kind of
 * cycle, for one iteration: recorded per cycle, published as
 * {@code <prefix><kind>.p50|p99|mean|cpu} (µs) through {@link IterationMetrics}.
 */
final class CycleTimes {

	private final String[] kinds;

	private final long[][] samples;

	private final int[] counts;

	private final long[] cpuNanos;

	CycleTimes(String... kinds) {
		this.kinds = kinds;
		this.samples = new long[kinds.length][4096];
		this.counts = new int[kinds.length];
		this.cpuNanos = new long[kinds.length];
	}

	/**
	 * Record one cycle.
	 * @param kind the index of its kind
	 * @param nanos its wall time
	 * @param cpu the calling thread's CPU time in it
	 */
	void record(int kind, long nanos, long cpu) {
		if (this.counts[kind] == this.samples[kind].length) {
			this.samples[kind] = Arrays.copyOf(this.samples[kind], this.counts[kind] * 2);
		}
		this.samples[kind][this.counts[kind]++] = nanos;
		this.cpuNanos[kind] += cpu;
	}

	/**
	 * Publish the iteration's figures of every kind and start afresh.
	 * @param prefix the metric names' prefix
	 * @return the medians and means by kind (µs), or {@code null} when a kind had no
	 * cycle
	 */
	@Nullable Summary publish(String prefix) {
		double[] medians = new double[this.kinds.length];
		double[] means = new double[this.kinds.length];
		boolean complete = true;
		for (int kind = 0; kind < this.kinds.length; kind++) {
			long[] sorted = Arrays.copyOf(this.samples[kind], this.counts[kind]);
			long cpu = this.cpuNanos[kind];
			this.counts[kind] = 0;
			this.cpuNanos[kind] = 0;
			if (sorted.length == 0) {
				complete = false;
				continue;
			}
			IterationMetrics.publish(prefix + this.kinds[kind] + ".cpu", cpu / 1_000.0 / sorted.length, "us");
			Arrays.sort(sorted);
			medians[kind] = percentile(sorted, 50);
			means[kind] = Arrays.stream(sorted).average().orElse(Double.NaN) / 1_000.0;
			IterationMetrics.publish(prefix + this.kinds[kind] + ".p50", medians[kind], "us");
			IterationMetrics.publish(prefix + this.kinds[kind] + ".p99", percentile(sorted, 99), "us");
			IterationMetrics.publish(prefix + this.kinds[kind] + ".mean", means[kind], "us");
		}
		return complete ? new Summary(medians, means) : null;
	}

	private static double percentile(long[] sorted, double percentile) {
		int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(index, sorted.length - 1))] / 1_000.0;
	}

	/**
	 * One iteration's medians and means, by kind.
	 *
	 * @param medians the median cycle of each kind, µs
	 * @param means the mean cycle of each kind, µs
	 */
	record Summary(double[] medians, double[] means) {

	}

}
