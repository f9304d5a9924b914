package dev.zklock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.data.Stat;
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
import org.openjdk.jmh.annotations.Warmup;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.CuratorLockManager;

/**
 * Hot keys (issue #31): what {@value #WAITERS} threads of one JVM waiting on one key
 * cost ZooKeeper. A holder on another ZooKeeper session (a client and lock manager
 * of its own) takes the key; then {@value #WAITERS} threads wait for it, with local
 * hand-off ({@link HotKeys}, through {@code LockTemplate}) and with one Curator
 * {@code InterProcessMutex} each, in turn (A B, then B A). Once the waiters are
 * queued and ZooKeeper has been quiet for a while, it counts the nodes under the
 * key's path, those of the waiters' session, the watches that session holds on the
 * key's path ({@code wchc}) and every watch of the server ({@code wchs}, the
 * holder's included); the requests the waiters sent to queue ({@link OpCounts});
 * then the holder releases and it times until every waiter had the key. Published as
 * {@code waiters.<zkLock|curatorPerThread>.nodes|ownNodes|watches|serverWatches|requests|drainMs}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 4)
@Fork(1)
@State(Scope.Benchmark)
public class HotKeyWaitersBenchmark {

	static final int WAITERS = 1_000;

	private static final String CURATOR_PATH = "/bench/curator/waiters/" + LockFixture.CONTENDED_KEY;

	private static final Duration QUIET = Duration.ofMillis(500);

	private CuratorFramework otherClient;

	private CuratorLockManager otherManager;

	private int iteration;

	/**
	 * Connect the holder's session.
	 */
	@Setup(Level.Trial)
	public void connect() {
		this.otherClient = CuratorFrameworkFactory.newClient(BenchContext.connectString(), new RetryOneTime(100));
		this.otherClient.start();
		this.otherManager = new CuratorLockManager(this.otherClient, BenchContext.BASE_PATH, Duration.ofSeconds(60));
	}

	/**
	 * Close the holder's session.
	 */
	@TearDown(Level.Trial)
	public void close() {
		this.otherManager.close();
		this.otherClient.close();
	}

	/**
	 * Queue {@value #WAITERS} waiters of each kind behind a holder, count, and let
	 * them through.
	 * @param fixture the waiters' locks
	 * @throws Exception when ZooKeeper fails or a waiter does
	 */
	@Benchmark
	public void thousandWaiters(LockFixture fixture) throws Exception {
		boolean hotKeyFirst = this.iteration++ % 2 == 0;
		for (int turn = 0; turn < 2; turn++) {
			if ((turn == 0) == hotKeyFirst) {
				hotKey(fixture);
			}
			else {
				curator(fixture);
			}
		}
	}

	private void hotKey(LockFixture fixture) throws Exception {
		CuratorLockManager manager = fixture.context().lockManager();
		LockTemplate template = fixture.context().template();
		LockRequest request = HotKeys.request("hot-waiters", LockMode.MUTEX);
		String path = manager.pathFor(request.name(), LockFixture.CONTENDED_KEY);
		// closing twice is allowed: the second close does nothing
		try (LockHandle holder = this.otherManager.acquire(request)) {
			measure("zkLock", fixture, path, holder::close, () -> manager.getRegistry().waitingCount() == WAITERS,
					() -> template.execute(request, () -> Boolean.TRUE));
		}
	}

	private void curator(LockFixture fixture) throws Exception {
		InterProcessMutex holder = new InterProcessMutex(this.otherClient, CURATOR_PATH);
		holder.acquire();
		measure("curatorPerThread", fixture, CURATOR_PATH, holder::release,
				() -> children(CURATOR_PATH).size() == WAITERS + 1, () -> {
					InterProcessMutex mutex = new InterProcessMutex(fixture.client(), CURATOR_PATH);
					if (!mutex.acquire(60, TimeUnit.SECONDS)) {
						throw new IllegalStateException("Curator mutex not acquired in 60 s");
					}
					mutex.release();
				});
	}

	private void measure(String contestant, LockFixture fixture, String path, Step release, BooleanSupplier queued,
			Step waiter) throws Exception {
		String connect = BenchContext.connectString();
		long session = fixture.client().getZookeeperClient().getZooKeeper().getSessionId();
		long[] opsBefore = HandoffBoard.shared().opCounts();
		Queue<Exception> failures = new ConcurrentLinkedQueue<>();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < WAITERS; i++) {
			Thread thread = new Thread(() -> {
				try {
					waiter.run();
				}
				catch (Exception ex) {
					failures.add(ex);
				}
			}, "waiter-" + i);
			threads.add(thread);
			thread.start();
		}
		awaitQuiet(queued);
		long requests = sum(HandoffBoard.shared().opCounts()) - sum(opsBefore);
		List<String> nodes = children(path);
		int own = 0;
		for (String node : nodes) {
			Stat stat = this.otherClient.checkExists().forPath(path + "/" + node);
			own += (stat != null && stat.getEphemeralOwner() == session) ? 1 : 0;
		}
		String name = "waiters." + contestant + ".";
		IterationMetrics.publish(name + "nodes", nodes.size(), "#");
		IterationMetrics.publish(name + "ownNodes", own, "#");
		IterationMetrics.publish(name + "watches", ZooKeeperMonitor.watchesOf(connect, session, path), "#");
		IterationMetrics.publish(name + "serverWatches", ZooKeeperMonitor.totalWatches(connect), "#");
		IterationMetrics.publish(name + "requests", requests, "#");
		long start = System.nanoTime();
		release.run();
		for (Thread thread : threads) {
			thread.join(TimeUnit.SECONDS.toMillis(120));
		}
		IterationMetrics.publish(name + "drainMs", (System.nanoTime() - start) / 1e6, "ms");
		if (!failures.isEmpty()) {
			throw new IllegalStateException(failures.size() + " " + contestant + " waiters failed", failures.peek());
		}
	}

	// queued, and no request sent for QUIET: every waiter has set what it watches
	private static void awaitQuiet(BooleanSupplier queued) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
		long[] last = HandoffBoard.shared().opCounts();
		long quietSince = System.nanoTime();
		while (System.nanoTime() < deadline) {
			Thread.sleep(50);
			long[] now = HandoffBoard.shared().opCounts();
			if (!Arrays.equals(now, last)) {
				last = now;
				quietSince = System.nanoTime();
			}
			else if (queued.getAsBoolean() && System.nanoTime() - quietSince >= QUIET.toNanos()) {
				return;
			}
		}
		throw new IllegalStateException("Waiters were not queued in 120 s");
	}

	private List<String> children(String path) {
		try {
			return this.otherClient.getChildren().forPath(path);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not list " + path, ex);
		}
	}

	private static long sum(long[] counts) {
		return Arrays.stream(counts).sum();
	}

	@FunctionalInterface
	private interface Step {

		void run() throws Exception;

	}

}
