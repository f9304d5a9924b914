package dev.zklock.bench;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Hot keys (issue #31) across two JVMs: 4 threads here and 4 in a {@link Contender}
 * JVM on one key, both switching between zk-lock with local hand-off
 * ({@link HotKeys}, through {@code LockTemplate}) and raw Curator with one
 * {@code InterProcessMutex} per thread at each iteration ({@link HotKeyTurn} posts
 * the turn on the {@link HandoffBoard}, A B B A). Each tenure passes the key
 * within its JVM until its bounds, then the other JVM's waiters get it: the
 * {@code limits} parameter ({@code <max-passes>/<max-time ms>}, the same in both
 * JVMs) sweeps the bounds, so that the defaults can be chosen from the throughput
 * and the longest run of each. Published under {@code hotKey2jvm.zkLock.} and
 * {@code hotKey2jvm.curatorPerThread.}; {@code everyJvm.acquisitions} counts both JVMs.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 8, time = 2)
@Measurement(iterations = 8, time = 2)
@Fork(1)
@Threads(4)
public class HotKeyTwoJvmBenchmarks {

	/**
	 * One cycle with this iteration's contestant.
	 * @param turn whose iteration this is
	 * @param thread this thread's cycles
	 * @param other the other JVM
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void hotKeyAndCuratorPerThread(Turn turn, HotKeyBenchmarks.HotKeyCycles thread, OtherJvm other)
			throws Exception {
		thread.run(turn.current());
		turn.acquired(0);
	}

	/**
	 * Which contestant this iteration measures, and the tenures' bounds.
	 */
	@State(Scope.Benchmark)
	public static class Turn extends HotKeyTurn {

		/**
		 * The bounds of a tenure once another process waits, in both JVMs:
		 * {@code <max-passes>/<max-time ms>}, {@code max} for no bound on the passes.
		 */
		@Param({ HotKeys.DEFAULT_LIMITS, "4/50", "64/50", "max/20", "max/50", "max/100" })
		public String limits;

		/**
		 * A turn between local hand-off and Curator with a mutex per thread.
		 */
		public Turn() {
			super("hotKey2jvm", "all");
		}

	}

	/**
	 * The other JVM, running for the whole trial, following the turn with the same
	 * bounds.
	 */
	@State(Scope.Benchmark)
	public static class OtherJvm extends TwoJvmBenchmarks.OtherJvm {

		@Override
		List<Contestant> contestants() {
			return List.of(Contestant.HOT_KEY, Contestant.CURATOR_PER_THREAD);
		}

	}

}
