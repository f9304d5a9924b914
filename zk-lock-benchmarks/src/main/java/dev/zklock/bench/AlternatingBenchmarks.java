package dev.zklock.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * The 32-thread target measured side by side: iterations alternate between
 * {@code @DistributedLock} and raw Curator with one mutex per thread (in the order
 * A B B A, which cancels a steady drift in load), so that load from elsewhere on
 * the machine hits both alike. The primary score mixes both; each iteration adds
 * its acquisitions and seconds (ramp-up and ramp-down included for both) to
 * {@code alternating.<contestant>.acquisitions} and {@code .seconds}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 6, time = 2)
@Measurement(iterations = 6, time = 2)
@Fork(1)
@Threads(32)
public class AlternatingBenchmarks {

	private static final Contestant[] CONTESTANTS = { Contestant.ZK_LOCK, Contestant.CURATOR_PER_THREAD };

	private static final String[] NAMES = { "zkLock", "curatorPerThread" };

	private static final int[] ORDER = { 0, 1, 1, 0 };

	/**
	 * One cycle with this iteration's contestant.
	 * @param turn whose iteration this is
	 * @param thread this thread's cycles
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void zkLockAndCuratorPerThread32(Turn turn, BothCycles thread) throws Exception {
		thread.cycles[turn.current].run(thread.probe);
		turn.acquisitions.increment();
	}

	/**
	 * Which contestant this iteration measures, and its count.
	 */
	@State(Scope.Benchmark)
	public static class Turn {

		private final LongAdder acquisitions = new LongAdder();

		private volatile int current;

		private int warmups;

		private int measurements;

		private long start;

		/**
		 * Pick the next contestant; the measured iterations start the order afresh.
		 * @param iteration the iteration about to run
		 */
		@Setup(Level.Iteration)
		public void next(IterationParams iteration) {
			int index = (iteration.getType() == IterationType.MEASUREMENT) ? this.measurements++ : this.warmups++;
			this.current = ORDER[index % ORDER.length];
			this.acquisitions.reset();
			this.start = System.nanoTime();
		}

		/**
		 * Publish this iteration's rate.
		 * @param iteration the iteration that ran
		 */
		@TearDown(Level.Iteration)
		public void publish(IterationParams iteration) {
			double seconds = (System.nanoTime() - this.start) / 1e9;
			if (iteration.getType() == IterationType.MEASUREMENT) {
				String name = "alternating." + NAMES[this.current];
				IterationMetrics.publishSum(name + ".acquisitions", this.acquisitions.sum(), "#");
				IterationMetrics.publishSum(name + ".seconds", seconds, "s");
			}
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
			this.cycles = new Contestant.Cycle[CONTESTANTS.length];
			for (int i = 0; i < CONTESTANTS.length; i++) {
				this.cycles[i] = CONTESTANTS[i].newCycle(fixture);
			}
		}

	}

}
