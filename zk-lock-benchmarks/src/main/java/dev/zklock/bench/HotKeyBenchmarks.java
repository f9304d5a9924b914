package dev.zklock.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Hot keys (issue #31): 8 and 32 threads of one JVM on one key, iterations
 * alternating between zk-lock with local hand-off ({@link HotKeys}: a
 * {@code LockTemplate} request with {@code localHandoff(true)}, the request
 * {@code @DistributedLock(localHandoff = true)} builds) and raw Curator
 * with one {@code InterProcessMutex} per thread ({@link HotKeyTurn}, A B B A).
 * Published under {@code hotKey<threads>.zkLock.} and
 * {@code hotKey<threads>.curatorPerThread.}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 8, time = 2)
@Fork(1)
public class HotKeyBenchmarks {

	private static final Contestant[] CONTESTANTS = { Contestant.HOT_KEY, Contestant.CURATOR_PER_THREAD };

	/**
	 * One cycle with this iteration's contestant, 8 threads.
	 * @param turn whose iteration this is
	 * @param thread this thread's cycles
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	@Threads(8)
	public void hotKeyAndCuratorPerThread8(Turn turn, HotKeyCycles thread) throws Exception {
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
	public void hotKeyAndCuratorPerThread32(Turn turn, HotKeyCycles thread) throws Exception {
		thread.run(turn.current());
		turn.acquired(0);
	}

	/**
	 * Which contestant this iteration measures, and its counts.
	 */
	@State(Scope.Benchmark)
	public static class Turn extends HotKeyTurn {

		/**
		 * A turn between local hand-off and Curator with a mutex per thread.
		 */
		public Turn() {
			super("hotKey%d", "all");
		}

	}

	/**
	 * A thread's cycle with local hand-off and with its own Curator mutex.
	 */
	@State(Scope.Thread)
	public static class HotKeyCycles extends AlternatingBenchmarks.BothCycles {

		@Override
		Contestant[] contestants() {
			return CONTESTANTS;
		}

	}

}
