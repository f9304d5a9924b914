package dev.zklock.bench;

import java.util.List;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Two JVMs with 4 threads each want one key. The score is this JVM's
 * acquisitions per second; multiplied by {@code acquisitions.ratio} it gives both
 * JVMs' together. Hand-offs are timed across the two JVMs.
 * <p>
 * Every hand-off crosses to the other JVM and back, so the slower JVM sets the
 * pace: the other JVM warms up before the trial starts ({@link Contender}), and
 * this one has a longer warm-up than the one-JVM rows, so that neither runs
 * interpreted code in the measured iterations.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 8, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(1)
@Threads(4)
public class TwoJvmBenchmarks {

	private static final int CONTENDER_THREADS = 4;

	/**
	 * {@code @DistributedLock} in both JVMs.
	 * @param thread this thread's cycle
	 * @param other the other JVM
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void zkLock(ContendedBenchmarks.ZkLockThread thread, ZkLockContender other) throws Exception {
		thread.cycle();
	}

	/**
	 * Raw Curator with a mutex per thread in both JVMs.
	 * @param thread this thread's cycle
	 * @param other the other JVM
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void curatorPerThread(ContendedBenchmarks.CuratorPerThread thread, CuratorContender other)
			throws Exception {
		thread.cycle();
	}

	/**
	 * The other JVM, running for the whole trial.
	 */
	public abstract static class OtherJvm {

		private static final String LIMITS = "limits";

		private ContenderProcess process;

		/**
		 * Start the other JVM, with the benchmark's bounds of tenures with local
		 * hand-off ({@code limits}) when it has them.
		 * @param benchmark the benchmark
		 * @throws Exception when it does not start
		 */
		@Setup(Level.Trial)
		public void start(BenchmarkParams benchmark) throws Exception {
			String limits = benchmark.getParamsKeys().contains(LIMITS) ? benchmark.getParam(LIMITS)
					: HotKeys.DEFAULT_LIMITS;
			this.process = ContenderProcess.start(contestants(), CONTENDER_THREADS, limits);
		}

		/**
		 * Stop the other JVM.
		 * @throws Exception when it failed
		 */
		@TearDown(Level.Trial)
		public void stop() throws Exception {
			this.process.close();
		}

		/**
		 * How the other JVM locks: with more than one contestant, it follows the turn
		 * on the {@link HandoffBoard}.
		 * @return the contestants, in the turn's order
		 */
		abstract List<Contestant> contestants();

	}

	/**
	 * The other JVM locking with zk-lock.
	 */
	@State(Scope.Benchmark)
	public static class ZkLockContender extends OtherJvm {

		@Override
		List<Contestant> contestants() {
			return List.of(Contestant.ZK_LOCK);
		}

	}

	/**
	 * The other JVM locking with a Curator mutex per thread.
	 */
	@State(Scope.Benchmark)
	public static class CuratorContender extends OtherJvm {

		@Override
		List<Contestant> contestants() {
			return List.of(Contestant.CURATOR_PER_THREAD);
		}

	}

}
