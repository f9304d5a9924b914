package dev.zklock.bench;

import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import dev.zklock.annotation.LockMode;

/**
 * READ-heavy contention: {@value #READERS} reader threads and one writer thread of
 * one JVM on one key, {@code @DistributedLock} READ/WRITE against Curator's
 * {@code InterProcessReadWriteLock} (one instance per thread), in alternating
 * iterations ({@link AlternatingTurn}). Published under
 * {@code readHeavy.zkLock.} and {@code readHeavy.curatorPerThread.}, with
 * {@code reader.acquisitions} and {@code writer.acquisitions} apart.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(1)
public class ReadHeavyBenchmarks {

	static final int READERS = 8;

	private static final int READER = 0;

	private static final int WRITER = 1;

	/**
	 * A reader's cycle.
	 * @param turn whose iteration this is
	 * @param thread this thread's locks
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Group("readHeavy")
	@GroupThreads(READERS)
	public void reader(Turn turn, ReadWriteLocks thread) throws Exception {
		thread.read(turn.current());
		turn.acquired(READER);
	}

	/**
	 * The writer's cycle.
	 * @param turn whose iteration this is
	 * @param thread this thread's locks
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Group("readHeavy")
	@GroupThreads(1)
	public void writer(Turn turn, ReadWriteLocks thread) throws Exception {
		thread.write(turn.current());
		turn.acquired(WRITER);
	}

	/**
	 * Which contestant this iteration measures, and its counts.
	 */
	@State(Scope.Benchmark)
	public static class Turn extends AlternatingTurn {

		/**
		 * A turn between zk-lock and Curator with a read/write lock per thread.
		 */
		public Turn() {
			super("readHeavy", "reader", "writer");
		}

	}

	/**
	 * A thread's locks: zk-lock's proxy and a Curator read/write lock of its own.
	 */
	@State(Scope.Thread)
	public static class ReadWriteLocks {

		private Runnable zkLockRead;

		private Runnable zkLockWrite;

		private InterProcessReadWriteLock curator;

		/**
		 * Prepare both.
		 * @param fixture the locks
		 */
		@Setup(Level.Trial)
		public void prepare(LockFixture fixture) {
			this.zkLockRead = zkLock(fixture, LockMode.READ);
			this.zkLockWrite = zkLock(fixture, LockMode.WRITE);
			this.curator = fixture.curatorRecipes().newContendedReadWriteLock();
		}

		/**
		 * zk-lock's cycle in a mode.
		 * @param fixture the locks
		 * @param mode READ or WRITE
		 * @return one call of the annotated method
		 */
		Runnable zkLock(LockFixture fixture, LockMode mode) {
			LockedService service = fixture.service();
			return (mode == LockMode.READ) ? () -> service.contendedRead(LockFixture.CONTENDED_KEY)
					: () -> service.contendedWrite(LockFixture.CONTENDED_KEY);
		}

		void read(int contestant) throws Exception {
			cycle(contestant, this.zkLockRead, this.curator.readLock());
		}

		void write(int contestant) throws Exception {
			cycle(contestant, this.zkLockWrite, this.curator.writeLock());
		}

		private static void cycle(int contestant, Runnable zkLock, InterProcessMutex curator) throws Exception {
			if (contestant == 0) {
				zkLock.run();
				return;
			}
			if (!curator.acquire(60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Curator read/write lock not acquired in 60 s");
			}
			curator.release();
		}

	}

}
