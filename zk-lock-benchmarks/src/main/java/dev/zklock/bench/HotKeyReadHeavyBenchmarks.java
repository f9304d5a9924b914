package dev.zklock.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.LockMode;

/**
 * Hot keys (issue #31), READ-heavy: {@value ReadHeavyBenchmarks#READERS} reader
 * threads and one writer thread of one JVM on one key, zk-lock READ/WRITE with
 * local hand-off ({@link HotKeys}, through {@code LockTemplate}) against Curator's
 * {@code InterProcessReadWriteLock}, one instance per thread, in alternating
 * iterations ({@link HotKeyTurn}, A B B A). Readers share one READ tenure, admitted
 * beside it until the writer waits; the writer has a WRITE tenure of its own.
 * Published under {@code hotKeyReadHeavy.zkLock.} and
 * {@code hotKeyReadHeavy.curatorPerThread.}, with readers and writer apart.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 8, time = 2)
@Fork(1)
public class HotKeyReadHeavyBenchmarks {

	/**
	 * A reader's cycle.
	 * @param turn whose iteration this is
	 * @param thread this thread's locks
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Group("hotKeyReadHeavy")
	@GroupThreads(ReadHeavyBenchmarks.READERS)
	public void reader(Turn turn, HotKeyLocks thread) throws Exception {
		thread.read(turn.current());
		turn.acquired(0);
	}

	/**
	 * The writer's cycle.
	 * @param turn whose iteration this is
	 * @param thread this thread's locks
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Group("hotKeyReadHeavy")
	@GroupThreads(1)
	public void writer(Turn turn, HotKeyLocks thread) throws Exception {
		thread.write(turn.current());
		turn.acquired(1);
	}

	/**
	 * Which contestant this iteration measures, and its counts.
	 */
	@State(Scope.Benchmark)
	public static class Turn extends HotKeyTurn {

		/**
		 * A turn between local hand-off and Curator with a read/write lock per thread.
		 */
		public Turn() {
			super("hotKeyReadHeavy", "reader", "writer");
		}

	}

	/**
	 * A thread's locks: zk-lock's template with local hand-off and a Curator
	 * read/write lock of its own.
	 */
	@State(Scope.Thread)
	public static class HotKeyLocks extends ReadHeavyBenchmarks.ReadWriteLocks {

		@Override
		Runnable zkLock(LockFixture fixture, LockMode mode) {
			LockTemplate template = fixture.context().template();
			LockRequest request = HotKeys.request("hot-rw", mode);
			return () -> template.execute(request, () -> Boolean.TRUE);
		}

	}

}
