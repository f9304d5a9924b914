package dev.zklock.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.zookeeper.KeeperException;
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
 * Independent keys through one client: 64 threads, each locking a key of its own
 * through {@code LockTemplate} (no thread ever waits for another), next to the
 * same 64 threads creating and deleting a node each under a parent of their own
 * (the floor). Both rows run in one JMH run, one after the other; their ratio is
 * what the engine's own work costs when the client, not ZooKeeper's queues, is
 * what the threads share.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(1)
@Threads(64)
public class IndependentKeysBenchmarks {

	private static final AtomicInteger THREADS = new AtomicInteger();

	/**
	 * One thread's key, and its parent for the floor.
	 */
	@State(Scope.Thread)
	public static class ThreadKey {

		String key = "";

		String parent = "";

		/**
		 * Pick a key no other thread uses, and make its floor's parent.
		 * @param fixture the locks
		 * @throws Exception when ZooKeeper fails
		 */
		@Setup(Level.Trial)
		public void pick(LockFixture fixture) throws Exception {
			int index = THREADS.getAndIncrement();
			this.key = "k" + index;
			this.parent = "/bench/zookeeper/independent/" + this.key;
			try {
				fixture.client().create().creatingParentsIfNeeded().forPath(this.parent);
			}
			catch (KeeperException.NodeExistsException ex) {
				// made by an earlier fork
			}
		}

	}

	/**
	 * The floor: a node created and deleted under the thread's own parent.
	 * @param fixture the locks
	 * @param key the thread's key
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void floor(LockFixture fixture, ThreadKey key) throws Exception {
		fixture.zooKeeperCreateDelete(key.parent);
	}

	/**
	 * One cycle of the thread's own key through the template.
	 * @param fixture the locks
	 * @param key the thread's key
	 */
	@Benchmark
	public void template(LockFixture fixture, ThreadKey key) {
		fixture.template("independent", key.key);
	}

}
