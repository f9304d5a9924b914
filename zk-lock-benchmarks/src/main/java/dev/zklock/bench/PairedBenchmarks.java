package dev.zklock.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
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

	private final CycleTimes times = new CycleTimes(KINDS);

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
				default -> fixture.annotated(this.mode);
			}
			long end = System.nanoTime();
			this.times.record(kind, end - start, this.threads.getCurrentThreadCpuTime() - cpuStart);
		}
	}

	private void curator(LockFixture fixture) throws Exception {
		switch (this.mode) {
			case "READ" -> fixture.curatorRead();
			case "WRITE" -> fixture.curatorWrite();
			default -> fixture.curatorMutex();
		}
	}

	/**
	 * Publish this iteration's figures and start afresh.
	 */
	@TearDown(Level.Iteration)
	public void publish() {
		String prefix = this.mode.equals("MUTEX") ? "paired." : "paired-" + this.mode.toLowerCase() + ".";
		CycleTimes.Summary summary = this.times.publish(prefix);
		if (summary == null) {
			return;
		}
		double[] medians = summary.medians();
		double[] means = summary.means();
		IterationMetrics.publish(prefix + "annotated/curator.p50", medians[2] / medians[1], "x");
		IterationMetrics.publish(prefix + "annotated/curator.mean", means[2] / means[1], "x");
		IterationMetrics.publish(prefix + "annotated/floor.p50", medians[2] / medians[0], "x");
		IterationMetrics.publish(prefix + "curator/floor.p50", medians[1] / medians[0], "x");
	}

}
