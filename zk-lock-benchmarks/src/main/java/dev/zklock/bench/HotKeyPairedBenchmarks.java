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
import org.openjdk.jmh.infra.IterationParams;

import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;

/**
 * Hot keys (issue #31), uncontended: what local hand-off costs a lone holder. Each
 * operation runs one raw ZooKeeper floor cycle (create + delete) and one MUTEX
 * cycle through {@code LockTemplate} with {@code localHandoff} off and one with it
 * on, in rotating order, as {@link PairedBenchmarks} does for every mode.
 * Published as {@code hotPaired.<floor|off|on>.p50|p99|mean|cpu} (µs), the ratios
 * {@code hotPaired.<off|on>/floor.p50} and {@code hotPaired.on/off.p50}, and after
 * each measured iteration the ZooKeeper requests per cycle of each kind alone
 * ({@code hotPaired.<kind>.zk.ops} and by type).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 3)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(1)
@State(Scope.Thread)
public class HotKeyPairedBenchmarks {

	private static final String PREFIX = "hotPaired.";

	private static final String[] KINDS = { "floor", "off", "on" };

	private final CycleTimes times = new CycleTimes(KINDS);

	private LockTemplate template;

	private LockRequest off;

	private LockRequest on;

	/**
	 * Build the requests, as an application would once.
	 * @param fixture the locks
	 */
	@Setup(Level.Trial)
	public void prepare(LockFixture fixture) {
		this.template = fixture.context().template();
		LockRequest.Builder request = LockRequest.named("hot-paired").keys(LockFixture.KEY);
		this.off = request.localHandoff(false).build();
		this.on = request.localHandoff(true).build();
	}

	/**
	 * One cycle of each kind, in rotating order.
	 * @param fixture the locks
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void floorOffOn(LockFixture fixture) throws Exception {
		this.times.runEach((kind) -> cycle(fixture, kind));
	}

	private void cycle(LockFixture fixture, int kind) throws Exception {
		if (kind == 0) {
			fixture.zooKeeperCreateDelete();
		}
		else {
			this.template.execute((kind == 1) ? this.off : this.on, () -> Boolean.TRUE);
		}
	}

	/**
	 * Publish this iteration's figures and start afresh; after a measured iteration,
	 * count the requests of each kind of cycle.
	 * @param iteration the iteration that ran
	 * @param fixture the locks
	 * @throws Exception when ZooKeeper fails
	 */
	@TearDown(Level.Iteration)
	public void publish(IterationParams iteration, LockFixture fixture) throws Exception {
		CycleTimes.Summary summary = this.times.publish(PREFIX, iteration, (kind) -> cycle(fixture, kind));
		if (summary == null) {
			return;
		}
		double[] medians = summary.medians();
		IterationMetrics.publish(PREFIX + "off/floor.p50", medians[1] / medians[0], "x");
		IterationMetrics.publish(PREFIX + "on/floor.p50", medians[2] / medians[0], "x");
		IterationMetrics.publish(PREFIX + "on/off.p50", medians[2] / medians[1], "x");
	}

}
