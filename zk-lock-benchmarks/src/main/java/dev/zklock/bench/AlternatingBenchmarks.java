package dev.zklock.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The contended MUTEX targets measured side by side: 8 and 32 threads in one JVM on
 * one key, iterations alternating between {@code @DistributedLock} and raw Curator
 * with one mutex per thread ({@link AlternatingTurn}). The primary score mixes both;
 * the figures of each are published under {@code alternating<threads>.zkLock.} and
 * {@code alternating<threads>.curatorPerThread.}, with the hand-off median of each.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 6, time = 2)
@Measurement(iterations = 6, time = 2)
@Fork(1)
public class AlternatingBenchmarks {

	private static final Contestant[] CONTESTANTS = { Contestant.ZK_LOCK, Contestant.CURATOR_PER_THREAD };

	/**
	 * One cycle with this iteration's contestant, 8 threads.
	 * @param turn whose iteration this is
	 * @param thread this thread's cycles
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Threads(8)
	@Warmup(iterations = 4, time = 2)
	@Measurement(iterations = 4, time = 2)
	public void zkLockAndCuratorPerThread8(Turn turn, BothCycles thread) throws Exception {
		thread.run(turn.current());
		turn.acquired(0);
	}

	/**
	 * One cycle with this iteration's contestant, 32 threads.
	 * @param turn whose iteration this is
	 * @param thread this thread's cycles
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Threads(32)
	public void zkLockAndCuratorPerThread32(Turn turn, BothCycles thread) throws Exception {
		thread.run(turn.current());
		turn.acquired(0);
	}

	/**
	 * Which contestant this iteration measures, and its count.
	 */
	@State(Scope.Benchmark)
	public static class Turn extends AlternatingTurn {

		/**
		 * A turn between zk-lock and Curator with a mutex per thread.
		 */
		public Turn() {
			super("alternating%d", "all");
		}

	}

	/**
	 * A thread's cycle for each contestant.
	 */
	@State(Scope.Thread)
	public static class BothCycles {

		private final HandoffProbe probe = new HandoffProbe();

		private Contestant.Cycle[] cycles;

		/**
		 * Prepare both cycles.
		 * @param fixture the locks
		 */
		@Setup(Level.Trial)
		public void prepare(LockFixture fixture) {
			this.probe.register();
			Contestant[] contestants = contestants();
			this.cycles = new Contestant.Cycle[contestants.length];
			for (int i = 0; i < contestants.length; i++) {
				this.cycles[i] = contestants[i].newCycle(fixture);
			}
		}

		/**
		 * The contestants, in the order of {@link AlternatingTurn#current()}.
		 * @return zk-lock and Curator with a mutex per thread
		 */
		Contestant[] contestants() {
			return CONTESTANTS;
		}

		/**
		 * One cycle of a contestant.
		 * @param contestant its index
		 * @throws Exception when ZooKeeper fails
		 */
		void run(int contestant) throws Exception {
			this.cycles[contestant].run(this.probe);
		}

	}

}
