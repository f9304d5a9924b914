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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

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

		private ContenderProcess process;

		/**
		 * Start the other JVM.
		 * @throws Exception when it does not start
		 */
		@Setup(Level.Trial)
		public void start() throws Exception {
			this.process = ContenderProcess.start(contestant(), CONTENDER_THREADS);
		}

		/**
		 * Stop the other JVM.
		 * @throws Exception when it failed
		 */
		@TearDown(Level.Trial)
		public void stop() throws Exception {
			this.process.close();
		}

		abstract Contestant contestant();

	}

	/**
	 * The other JVM locking with zk-lock.
	 */
	@State(Scope.Benchmark)
	public static class ZkLockContender extends OtherJvm {

		@Override
		Contestant contestant() {
			return Contestant.ZK_LOCK;
		}

	}

	/**
	 * The other JVM locking with a Curator mutex per thread.
	 */
	@State(Scope.Benchmark)
	public static class CuratorContender extends OtherJvm {

		@Override
		Contestant contestant() {
			return Contestant.CURATOR_PER_THREAD;
		}

	}

}
