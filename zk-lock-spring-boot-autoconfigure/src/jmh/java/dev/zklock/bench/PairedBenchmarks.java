package dev.zklock.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The headline ratios measured side by side, for MUTEX, READ and WRITE. Each
 * operation runs one raw ZooKeeper floor cycle, one cycle of Curator's own recipe
 * for the mode ({@code InterProcessMutex}, or {@code InterProcessReadWriteLock}'s
 * read or write lock) and one {@code @DistributedLock} cycle in the mode, in
 * rotating order, and times each. Load from
 * elsewhere on the machine then hits all three alike, so their ratios hold even
 * when the separate rows, measured one after the other, drift apart. Published as
 * {@code paired.<kind>.p50|p99|mean} (µs), {@code paired.<a>/<b>.p50|mean} and
 * {@code paired.<kind>.cpu} for MUTEX, and under {@code paired-read.} and
 * {@code paired-write.} for the other modes: CPU time of the calling thread per cycle (µs), which
 * leaves out ZooKeeper's client threads and is what the lock's own code costs.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 6, time = 3)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(1)
@State(Scope.Thread)
public class PairedBenchmarks {

	private static final String[] KINDS = { "floor", "curator", "annotated" };

	/**
	 * The lock mode of the Curator and annotated cycles.
	 */
	@Param({ "MUTEX", "READ", "WRITE" })
	public String mode;

	private final long[][] samples = new long[KINDS.length][4096];

	private final int[] counts = new int[KINDS.length];

	private final long[] cpuNanos = new long[KINDS.length];

	private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

	private int turn;

	/**
	 * One cycle of each kind, in rotating order.
	 * @param fixture the locks
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void floorCuratorAnnotated(LockFixture fixture) throws Exception {
		int first = this.turn;
		this.turn = (this.turn + 1) % KINDS.length;
		for (int i = 0; i < KINDS.length; i++) {
			int kind = (first + i) % KINDS.length;
			long cpuStart = this.threads.getCurrentThreadCpuTime();
			long start = System.nanoTime();
			switch (kind) {
				case 0 -> fixture.zooKeeperCreateDelete();
				case 1 -> curator(fixture);
				default -> annotated(fixture);
			}
			long end = System.nanoTime();
			this.cpuNanos[kind] += this.threads.getCurrentThreadCpuTime() - cpuStart;
			record(kind, end - start);
		}
	}

	private void curator(LockFixture fixture) throws Exception {
		switch (this.mode) {
			case "READ" -> fixture.curatorRead();
			case "WRITE" -> fixture.curatorWrite();
			default -> fixture.curatorMutex();
		}
	}

	private void annotated(LockFixture fixture) {
		switch (this.mode) {
			case "READ" -> fixture.service().read(LockFixture.KEY);
			case "WRITE" -> fixture.service().write(LockFixture.KEY);
			default -> fixture.service().mutex(LockFixture.KEY);
		}
	}

	/**
	 * Publish this iteration's figures and start afresh.
	 */
	@TearDown(Level.Iteration)
	public void publish() {
		String prefix = this.mode.equals("MUTEX") ? "paired." : "paired-" + this.mode.toLowerCase() + ".";
		double[] medians = new double[KINDS.length];
		double[] means = new double[KINDS.length];
		for (int kind = 0; kind < KINDS.length; kind++) {
			long[] sorted = Arrays.copyOf(this.samples[kind], this.counts[kind]);
			long cpu = this.cpuNanos[kind];
			this.counts[kind] = 0;
			this.cpuNanos[kind] = 0;
			if (sorted.length == 0) {
				return;
			}
			IterationMetrics.publish(prefix + KINDS[kind] + ".cpu", cpu / 1_000.0 / sorted.length, "us");
			Arrays.sort(sorted);
			medians[kind] = percentile(sorted, 50);
			means[kind] = Arrays.stream(sorted).average().orElse(Double.NaN) / 1_000.0;
			IterationMetrics.publish(prefix + KINDS[kind] + ".p50", medians[kind], "us");
			IterationMetrics.publish(prefix + KINDS[kind] + ".p99", percentile(sorted, 99), "us");
			IterationMetrics.publish(prefix + KINDS[kind] + ".mean", means[kind], "us");
		}
		IterationMetrics.publish(prefix + "annotated/curator.p50", medians[2] / medians[1], "x");
		IterationMetrics.publish(prefix + "annotated/curator.mean", means[2] / means[1], "x");
		IterationMetrics.publish(prefix + "annotated/floor.p50", medians[2] / medians[0], "x");
		IterationMetrics.publish(prefix + "curator/floor.p50", medians[1] / medians[0], "x");
	}

	private void record(int kind, long nanos) {
		if (this.counts[kind] == this.samples[kind].length) {
			this.samples[kind] = Arrays.copyOf(this.samples[kind], this.counts[kind] * 2);
		}
		this.samples[kind][this.counts[kind]++] = nanos;
	}

	private static double percentile(long[] sorted, double percentile) {
		int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(index, sorted.length - 1))] / 1_000.0;
	}

}
