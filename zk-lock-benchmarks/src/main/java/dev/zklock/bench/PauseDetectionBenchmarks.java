package dev.zklock.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.PauseDetector;

/**
 * What pause detection costs an uncontended cycle, measured side by side: each
 * operation runs one {@code @DistributedLock} cycle with the auto-configured
 * {@link PauseDetector} attached to the lock manager and one with none, in
 * alternating order, on the same connection, so that load from elsewhere on the
 * machine hits both alike. The detector is switched between the timed cycles (a
 * hold keeps the guard it was acquired with). The annotated cycle ends with the
 * interceptor's {@code assertHeld()}, so the check is part of it.
 * <p>
 * Published as {@code pause-<mode>.<on|off>.p50|p99|mean} (µs),
 * {@code pause-<mode>.on/off.p50|mean} and {@code pause-<mode>.<on|off>.cpu} (CPU time
 * of the calling thread per cycle, µs). The detector's ticker runs through both
 * halves, so its own cost is published apart: {@code pause-<mode>.ticker.cpu}, its
 * thread's CPU time per second (µs/s).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 6, time = 3)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(1)
@State(Scope.Thread)
public class PauseDetectionBenchmarks {

	private static final String[] KINDS = { "on", "off" };

	private static final String TICKER = "zk-lock-pause-detector";

	/**
	 * The lock mode of the cycles.
	 */
	@Param({ "MUTEX", "READ", "WRITE" })
	public String mode;

	private final CycleTimes times = new CycleTimes(KINDS);

	private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

	private CuratorLockManager manager;

	private PauseDetector detector;

	private long tickerId = -1;

	private long tickerCpuBefore;

	private long iterationStart;

	private int turn;

	/**
	 * Find the manager, its detector and the detector's thread.
	 * @param fixture the locks
	 */
	@Setup(Level.Trial)
	public void find(LockFixture fixture) {
		this.manager = fixture.context().lockManager();
		this.detector = fixture.context().pauseDetector();
		this.tickerId = Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals(TICKER))
			.mapToLong(Thread::getId)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No " + TICKER + " thread: is pause detection on?"));
	}

	/**
	 * Note the ticker's CPU time at the start of an iteration.
	 */
	@Setup(Level.Iteration)
	public void startIteration() {
		this.tickerCpuBefore = this.threads.getThreadCpuTime(this.tickerId);
		this.iterationStart = System.nanoTime();
	}

	/**
	 * One cycle with pause detection and one without, in alternating order.
	 * @param fixture the locks
	 */
	@Benchmark
	public void detectionOnOff(LockFixture fixture) {
		int first = this.turn;
		this.turn = (this.turn + 1) % KINDS.length;
		for (int i = 0; i < KINDS.length; i++) {
			int kind = (first + i) % KINDS.length;
			this.manager.setPauseDetector((kind == 0) ? this.detector : null);
			long cpuStart = this.threads.getCurrentThreadCpuTime();
			long start = System.nanoTime();
			fixture.annotated(this.mode);
			long end = System.nanoTime();
			this.times.record(kind, end - start, this.threads.getCurrentThreadCpuTime() - cpuStart);
		}
	}

	/**
	 * Publish this iteration's figures, start afresh and leave detection on.
	 */
	@TearDown(Level.Iteration)
	public void publish() {
		this.manager.setPauseDetector(this.detector);
		String prefix = "pause-" + this.mode.toLowerCase() + ".";
		double seconds = (System.nanoTime() - this.iterationStart) / 1e9;
		long tickerCpu = this.threads.getThreadCpuTime(this.tickerId) - this.tickerCpuBefore;
		IterationMetrics.publish(prefix + "ticker.cpu", tickerCpu / 1_000.0 / seconds, "us/s");
		CycleTimes.Summary summary = this.times.publish(prefix);
		if (summary != null) {
			IterationMetrics.publish(prefix + "on/off.p50", summary.medians()[0] / summary.medians()[1], "x");
			IterationMetrics.publish(prefix + "on/off.mean", summary.means()[0] / summary.means()[1], "x");
		}
	}

}
