package dev.zklock.bench;

import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
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
 * SEMAPHORE with {@value LockFixture#CONTENDED_PERMITS} permits, 12 threads of one
 * JVM on one key: {@code @DistributedLock} against Curator's
 * {@code InterProcessSemaphoreV2} with as many leases, one instance per thread, in
 * alternating iterations ({@link AlternatingTurn}). Published under
 * {@code semaphore12.zkLock.} and {@code semaphore12.curatorPerThread.}: acquisitions,
 * seconds and the server's requests.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(1)
@Threads(12)
public class SemaphoreContentionBenchmarks {

	/**
	 * One acquisition and release with this iteration's contestant.
	 * @param turn whose iteration this is
	 * @param thread this thread's semaphores
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void zkLockAndCuratorSemaphore12(Turn turn, Semaphores thread) throws Exception {
		if (turn.current() == 0) {
			thread.service.contendedSemaphore(LockFixture.CONTENDED_KEY);
		}
		else {
			Lease lease = thread.curator.acquire(60, TimeUnit.SECONDS);
			if (lease == null) {
				throw new IllegalStateException("Curator semaphore lease not acquired in 60 s");
			}
			lease.close();
		}
		turn.acquired(0);
	}

	/**
	 * Which contestant this iteration measures, and its count.
	 */
	@State(Scope.Benchmark)
	public static class Turn extends AlternatingTurn {

		/**
		 * A turn between zk-lock and Curator with a semaphore per thread.
		 */
		public Turn() {
			super("semaphore%d", "all");
		}

	}

	/**
	 * A thread's semaphores: zk-lock's proxy and a Curator semaphore of its own.
	 */
	@State(Scope.Thread)
	public static class Semaphores {

		private LockedService service;

		private InterProcessSemaphoreV2 curator;

		/**
		 * Prepare both.
		 * @param fixture the locks
		 */
		@Setup(Level.Trial)
		public void prepare(LockFixture fixture) {
			this.service = fixture.service();
			this.curator = fixture.curatorRecipes().newContendedSemaphore();
		}

	}

}
