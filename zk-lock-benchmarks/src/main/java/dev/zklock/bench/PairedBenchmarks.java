package dev.zklock.bench;

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
import org.openjdk.jmh.infra.IterationParams;

/**
 * The headline ratios measured side by side, for every mode. Each operation runs
 * one raw ZooKeeper floor cycle, one cycle of Curator's own recipe for the mode
 * ({@code InterProcessMutex}, {@code InterProcessReadWriteLock}'s read or write
 * lock, {@code InterProcessSemaphoreV2} with one or three leases) and one
 * {@code @DistributedLock} cycle in the mode, in rotating order, and times each.
 * Load from elsewhere on the machine then hits all three alike, so their ratios
 * hold even when the separate rows, measured one after the other, drift apart.
 * <p>
 * Published as {@code paired.<kind>.p50|p99|mean} (µs), {@code paired.<a>/<b>.p50|mean}
 * and {@code paired.<kind>.cpu} for MUTEX, and under {@code paired-read.},
 * {@code paired-write.}, {@code paired-semaphore1.} and {@code paired-semaphore3.}
 * for the other modes: CPU time of the calling thread per cycle (µs), which leaves
 * out ZooKeeper's client threads and is what the lock's own code costs. After each
 * measured iteration, {@value CycleTimes#COUNTED_CYCLES} more cycles of each kind run one kind
 * at a time between two reads of the server's request count, published as
 * {@code <prefix><kind>.zk.ops}: ZooKeeper requests per cycle of that kind alone (the
 * server's count), and {@code <prefix><kind>.zk.<type>} by type ({@link OpCounts}).
 * <p>
 * Ten warm-up iterations of 3 s: with five, the JIT was still compiling the lock's
 * path with C2 in the measured iterations (seen with {@code -XX:+PrintCompilation}),
 * and the ratio of a fork fell from its first measured iteration to its last by up to
 * 0.2.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 10, time = 3)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(1)
@State(Scope.Thread)
public class PairedBenchmarks {

	private static final String[] KINDS = { "floor", "curator", "annotated" };

	/**
	 * The lock mode of the Curator and annotated cycles; SEMAPHORE1 and SEMAPHORE3 are
	 * SEMAPHORE with one and three permits.
	 */
	@Param({ "MUTEX", "READ", "WRITE", "SEMAPHORE1", "SEMAPHORE3" })
	public String mode;

	private final CycleTimes times = new CycleTimes(KINDS);

	/**
	 * One cycle of each kind, in rotating order.
	 * @param fixture the locks
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void floorCuratorAnnotated(LockFixture fixture) throws Exception {
		this.times.runEach((kind) -> cycle(fixture, kind));
	}

	private void cycle(LockFixture fixture, int kind) throws Exception {
		switch (kind) {
			case 0 -> fixture.zooKeeperCreateDelete();
			case 1 -> fixture.curatorRecipes().cycle(this.mode);
			default -> fixture.annotated(this.mode);
		}
	}

	/**
	 * Publish this iteration's figures and start afresh; after a measured iteration,
	 * count the requests of each kind of cycle.
	 * @param iteration the iteration that ran
	 * @param fixture the locks
	 * @throws Exception when ZooKeeper fails
	 */
	@TearDown(Level.Iteration)
	public void publish(IterationParams iteration, LockFixture fixture) throws Exception {
		String prefix = prefix(this.mode);
		CycleTimes.Summary summary = this.times.publish(prefix, iteration, (kind) -> cycle(fixture, kind));
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

	static String prefix(String mode) {
		return mode.equals("MUTEX") ? "paired." : "paired-" + mode.toLowerCase() + ".";
	}

}
