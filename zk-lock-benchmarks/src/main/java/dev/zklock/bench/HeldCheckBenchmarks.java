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

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.PauseDetector;

/**
 * {@link LockHandle#isHeld()} on a held lock, with pause detection and without: two
 * handles on two keys, one acquired while the lock manager had the auto-configured
 * {@link PauseDetector} and one while it had none. Nothing is silent, so neither
 * should cost a ZooKeeper request: the profiler's {@code zk.ops} shows the requests
 * the server received per call (its pings only).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
@State(Scope.Thread)
public class HeldCheckBenchmarks {

	private LockHandle withDetection;

	private LockHandle withoutDetection;

	/**
	 * Acquire both handles on this thread.
	 * @param fixture the locks
	 */
	@Setup(Level.Trial)
	public void acquire(LockFixture fixture) {
		CuratorLockManager manager = fixture.context().lockManager();
		PauseDetector detector = fixture.context().pauseDetector();
		manager.setPauseDetector(null);
		this.withoutDetection = manager.acquire(LockRequest.named("held").keys("without-detection").build());
		manager.setPauseDetector(detector);
		this.withDetection = manager.acquire(LockRequest.named("held").keys("with-detection").build());
		if (!this.withDetection.isHeld() || !this.withoutDetection.isHeld()) {
			throw new IllegalStateException("The held-check benchmark could not hold both locks");
		}
	}

	/**
	 * Release both.
	 */
	@TearDown(Level.Trial)
	public void release() {
		this.withDetection.close();
		this.withoutDetection.close();
	}

	/**
	 * {@code isHeld()} of a hold guarded by the pause detector.
	 * @return whether it is held
	 */
	@Benchmark
	public boolean isHeldWithPauseDetection() {
		return this.withDetection.isHeld();
	}

	/**
	 * {@code isHeld()} of a hold without pause detection.
	 * @return whether it is held
	 */
	@Benchmark
	public boolean isHeldWithoutPauseDetection() {
		return this.withoutDetection.isHeld();
	}

}
