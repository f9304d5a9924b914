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
 * 8 and 32 threads of one JVM want one key: acquisitions per second, all threads
 * together. {@link ZooKeeperOpsProfiler} adds the hand-off latency.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(1)
public class ContendedBenchmarks {

	/**
	 * {@code @DistributedLock}, 8 threads.
	 * @param thread this thread's cycle
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Threads(8)
	public void zkLock8(ZkLockThread thread) throws Exception {
		thread.cycle();
	}

	/**
	 * {@code @DistributedLock}, 32 threads.
	 * @param thread this thread's cycle
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Threads(32)
	public void zkLock32(ZkLockThread thread) throws Exception {
		thread.cycle();
	}

	/**
	 * Raw Curator, a mutex per thread, 8 threads.
	 * @param thread this thread's cycle
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Threads(8)
	public void curatorPerThread8(CuratorPerThread thread) throws Exception {
		thread.cycle();
	}

	/**
	 * Raw Curator, a mutex per thread, 32 threads.
	 * @param thread this thread's cycle
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Threads(32)
	public void curatorPerThread32(CuratorPerThread thread) throws Exception {
		thread.cycle();
	}

	/**
	 * Raw Curator, one shared mutex, 8 threads.
	 * @param thread this thread's cycle
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Threads(8)
	public void curatorShared8(CuratorShared thread) throws Exception {
		thread.cycle();
	}

	/**
	 * Raw Curator, one shared mutex, 32 threads.
	 * @param thread this thread's cycle
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Threads(32)
	public void curatorShared32(CuratorShared thread) throws Exception {
		thread.cycle();
	}

	/**
	 * Spring Integration's registry, 8 threads.
	 * @param thread this thread's cycle
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Threads(8)
	public void springIntegration8(SpringIntegrationThread thread) throws Exception {
		thread.cycle();
	}

	/**
	 * Spring Integration's registry, 32 threads.
	 * @param thread this thread's cycle
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Threads(32)
	public void springIntegration32(SpringIntegrationThread thread) throws Exception {
		thread.cycle();
	}

	/**
	 * One benchmark thread: its cycle and its probe.
	 */
	public abstract static class ContendingThread {

		private Contestant.Cycle cycle;

		private HandoffProbe probe;

		/**
		 * Prepare this thread's cycle.
		 * @param fixture the locks
		 * @param probe this thread's probe
		 */
		@Setup(Level.Trial)
		public void prepare(LockFixture fixture, HandoffProbe probe) {
			this.cycle = contestant().newCycle(fixture);
			this.probe = probe;
		}

		void cycle() throws Exception {
			this.cycle.run(this.probe);
		}

		abstract Contestant contestant();

	}

	/**
	 * A thread of the zk-lock rows.
	 */
	@State(Scope.Thread)
	public static class ZkLockThread extends ContendingThread {

		@Override
		Contestant contestant() {
			return Contestant.ZK_LOCK;
		}

	}

	/**
	 * A thread with a Curator mutex of its own.
	 */
	@State(Scope.Thread)
	public static class CuratorPerThread extends ContendingThread {

		@Override
		Contestant contestant() {
			return Contestant.CURATOR_PER_THREAD;
		}

	}

	/**
	 * A thread sharing one Curator mutex.
	 */
	@State(Scope.Thread)
	public static class CuratorShared extends ContendingThread {

		@Override
		Contestant contestant() {
			return Contestant.CURATOR_SHARED;
		}

	}

	/**
	 * A thread of the Spring Integration rows.
	 */
	@State(Scope.Thread)
	public static class SpringIntegrationThread extends ContendingThread {

		@Override
		Contestant contestant() {
			return Contestant.SPRING_INTEGRATION;
		}

	}

}
