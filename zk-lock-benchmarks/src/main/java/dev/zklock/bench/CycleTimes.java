package dev.zklock.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * The cycle times and caller-thread CPU times of an interleaved benchmark, by kind of
 * cycle, for one iteration: recorded per cycle, published as
 * {@code <prefix><kind>.p50|p99|mean|cpu} (µs) through {@link IterationMetrics}.
 * It can also run the cycles, one of each kind in rotating order, and count the
 * ZooKeeper requests of each kind.
 */
final class CycleTimes {

	/**
	 * Cycles of each kind counted by {@link #countRequests}.
	 */
	static final int COUNTED_CYCLES = 64;

	private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

	private final String[] kinds;

	private int turn;

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
	 * Run one cycle of each kind, each timed, starting with the kind after the one
	 * that started the last call.
	 * @param cycle runs one cycle of a kind
	 * @throws Exception when a cycle fails
	 */
	void runEach(KindCycle cycle) throws Exception {
		int first = this.turn;
		this.turn = (this.turn + 1) % this.kinds.length;
		for (int i = 0; i < this.kinds.length; i++) {
			int kind = (first + i) % this.kinds.length;
			long cpuStart = this.threads.getCurrentThreadCpuTime();
			long start = System.nanoTime();
			cycle.run(kind);
			long end = System.nanoTime();
			record(kind, end - start, this.threads.getCurrentThreadCpuTime() - cpuStart);
		}
	}

	/**
	 * Publish the iteration's figures of every kind and start afresh; after a
	 * measured iteration, count the requests of each kind too.
	 * @param prefix the metric names' prefix
	 * @param iteration the iteration that ran
	 * @param cycle runs one cycle of a kind
	 * @return as {@link #publish(String)}
	 * @throws Exception when a cycle fails or the server does not answer
	 */
	@Nullable Summary publish(String prefix, IterationParams iteration, KindCycle cycle) throws Exception {
		Summary summary = publish(prefix);
		if (iteration.getType() == IterationType.MEASUREMENT) {
			countRequests(prefix, cycle);
		}
		return summary;
	}

	/**
	 * Run {@value #COUNTED_CYCLES} cycles of each kind, one kind at a time, and
	 * publish {@code <prefix><kind>.zk.ops}, the server's requests per cycle, and
	 * {@code <prefix><kind>.zk.<type>}, the clients' by type ({@link OpCounts}).
	 * @param prefix the metric names' prefix
	 * @param cycle runs one cycle of a kind
	 * @throws Exception when a cycle fails or the server does not answer
	 */
	private void countRequests(String prefix, KindCycle cycle) throws Exception {
		for (int kind = 0; kind < this.kinds.length; kind++) {
			long before = ZooKeeperMonitor.packetsReceived(BenchContext.connectString());
			long[] opsBefore = HandoffBoard.shared().opCounts();
			for (int i = 0; i < COUNTED_CYCLES; i++) {
				cycle.run(kind);
			}
			long packets = ZooKeeperMonitor.packetsReceived(BenchContext.connectString()) - before;
			IterationMetrics.publish(prefix + this.kinds[kind] + ".zk.ops", (double) packets / COUNTED_CYCLES,
					"ops/cycle");
			long[] ops = HandoffBoard.shared().opCounts();
			for (int i = 0; i < ops.length; i++) {
				IterationMetrics.publish(prefix + this.kinds[kind] + ".zk." + OpCounts.TYPES[i],
						(double) (ops[i] - opsBefore[i]) / COUNTED_CYCLES, "ops/cycle");
			}
		}
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
	 * One cycle of a kind.
	 */
	@FunctionalInterface
	interface KindCycle {

		void run(int kind) throws Exception;

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
