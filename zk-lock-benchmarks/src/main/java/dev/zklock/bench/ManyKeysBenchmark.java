package dev.zklock.bench;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * One shot locks and releases {@code keys} distinct keys through the annotated
 * method, each key once (the warm-up shot a tenth as many). Afterwards the
 * benchmark waits for ZooKeeper's container sweep, which runs every minute with
 * the server's defaults, and reports the znodes left under the lock name.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 1)
@Fork(1)
@State(Scope.Benchmark)
public class ManyKeysBenchmark {

	private static final String NAME_PATH = BenchContext.BASE_PATH + "/many";

	private static final long SWEEP_WAIT_MILLIS = TimeUnit.SECONDS.toMillis(300);

	/**
	 * Distinct keys per measured shot.
	 */
	@Param("10000")
	public int keys;

	private LockFixture fixture;

	private int shotKeys;

	private long next;

	/**
	 * Keep the fixture.
	 * @param fixture the locks
	 */
	@Setup(Level.Trial)
	public void init(LockFixture fixture) {
		this.fixture = fixture;
	}

	/**
	 * Size this shot.
	 * @param iteration the iteration about to run
	 */
	@Setup(Level.Iteration)
	public void plan(IterationParams iteration) {
		this.shotKeys = (iteration.getType() == IterationType.WARMUP) ? Math.max(1, this.keys / 10) : this.keys;
	}

	/**
	 * Lock and release each key once.
	 */
	@Benchmark
	public void lockDistinctKeys() {
		LockedService service = this.fixture.service();
		for (int i = 0; i < this.shotKeys; i++) {
			service.many("key-" + this.next++);
		}
	}

	/**
	 * After the measured shot, wait for the sweep and count what is left.
	 * @param iteration the iteration that ran
	 * @throws Exception when ZooKeeper fails
	 */
	@TearDown(Level.Iteration)
	public void awaitSweep(IterationParams iteration) throws Exception {
		if (iteration.getType() != IterationType.MEASUREMENT) {
			return;
		}
		CuratorFramework client = this.fixture.client();
		long start = System.nanoTime();
		int left = znodes(client);
		while (left > 0 && TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < SWEEP_WAIT_MILLIS) {
			Thread.sleep(1_000);
			left = znodes(client);
		}
		IterationMetrics.publishMax("sweep.znodesLeft", left, "znodes");
		IterationMetrics.publishMax("sweep.seconds", (System.nanoTime() - start) / 1e9, "s");
	}

	// The name node and its key nodes; lock nodes are gone once released
	private static int znodes(CuratorFramework client) throws Exception {
		try {
			List<String> children = client.getChildren().forPath(NAME_PATH);
			return 1 + children.size();
		}
		catch (KeeperException.NoNodeException ex) {
			return 0;
		}
	}

}
