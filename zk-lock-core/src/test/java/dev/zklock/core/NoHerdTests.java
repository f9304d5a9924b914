package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.drivers.AdvancedTracerDriver;
import org.apache.curator.drivers.EventTrace;
import org.apache.curator.drivers.OperationTrace;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.utils.DefaultTracerDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One release wakes a bounded number of waiters, not all of them. A waiter that
 * wakes re-reads the lock's children unless its last read proved the hand-off;
 * every mode's waiters read from Curator's event thread, so the test counts the
 * {@code getChildren} calls under the lock after the release, with a Curator
 * tracer. The control test shows the measure catches a herd: one
 * InterProcessMutex shared by all threads, whose waiters each read on their own
 * thread. The same tracer counts ZooKeeper operations per acquisition under
 * contention.
 */
class NoHerdTests extends AbstractZooKeeperTests {

	private static final int WAITERS = 20;

	private final ChildrenReaders readers = new ChildrenReaders();

	@BeforeEach
	void installTracer() {
		client.getZookeeperClient().setTracerDriver(this.readers);
	}

	@AfterEach
	void removeTracer() {
		client.getZookeeperClient().setTracerDriver(new DefaultTracerDriver());
	}

	/**
	 * MUTEX and WRITE wake one waiter, which holds without reading the queue: its
	 * last read showed only the released node ahead of it. SEMAPHORE wakes two: the
	 * first waiter, which watches the queue and reads it once to see it holds, and
	 * the waiter behind it, which its promotion wakes and which reads the queue once
	 * to become the first waiter. Any further waiter woken would read the queue.
	 */
	@ParameterizedTest
	@CsvSource({ "MUTEX, 0", "WRITE, 0", "SEMAPHORE, 2" })
	void releaseWakesOnlyTheNextWaiter(LockMode mode, int expectedWoken) throws Exception {
		LockRequest request = LockRequest.named("herd").keys("k").mode(mode).timeout(Duration.ofSeconds(60)).build();
		AtomicInteger acquired = new AtomicInteger();
		CountDownLatch finish = new CountDownLatch(1);
		List<Thread> waiters = new ArrayList<>();
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, request)) {
			for (int i = 0; i < WAITERS; i++) {
				Thread waiter = new Thread(() -> {
					try (LockHandle handle = this.manager.acquire(request)) {
						if (handle.isAcquired()) {
							acquired.incrementAndGet();
							finish.await();
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}, "waiter-" + i);
				waiters.add(waiter);
				waiter.start();
			}
			await().atMost(Duration.ofSeconds(30))
				.until(() -> waiters.stream().allMatch(ZooKeeperTestSupport::isWaitingInRecipe));
			this.readers.start(this.basePath);
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> acquired.get() == 1);
		await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
			.until(() -> this.readers.childrenReads() == expectedWoken && acquired.get() == 1);
		finish.countDown();
		for (Thread waiter : waiters) {
			waiter.join(30_000);
		}
		assertThat(acquired).hasValue(WAITERS);
	}

	@Test
	void contendedMutexCostsAFewOperationsPerAcquisition() throws Exception {
		int threads = 32;
		int rounds = 20;
		LockRequest request = LockRequest.named("hot").keys("k").timeout(Duration.ofSeconds(60)).build();
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> workers = new ArrayList<>();
		AtomicInteger acquisitions = new AtomicInteger();
		for (int i = 0; i < threads; i++) {
			Thread worker = new Thread(() -> {
				try {
					start.await();
					for (int round = 0; round < rounds; round++) {
						try (LockHandle handle = this.manager.acquire(request)) {
							if (handle.isAcquired()) {
								acquisitions.incrementAndGet();
							}
						}
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
			workers.add(worker);
			worker.start();
		}
		this.readers.start(this.basePath);
		long begin = System.nanoTime();
		start.countDown();
		for (Thread worker : workers) {
			worker.join(120_000);
		}
		long millis = Math.max(1, (System.nanoTime() - begin) / 1_000_000);
		double operationsPerAcquisition = (double) this.readers.operations() / acquisitions.get();
		System.out.printf("no-herd: %d threads, %d acquisitions of one MUTEX in %d ms (%.0f/s), "
				+ "%.1f ZooKeeper operations per acquisition%n", threads, acquisitions.get(), millis,
				acquisitions.get() * 1000.0 / millis, operationsPerAcquisition);
		assertThat(acquisitions).hasValue(threads * rounds);
		// create, getChildren, getData (watch), getChildren after the wake-up, delete
		assertThat(operationsPerAcquisition).isLessThan(8);
	}

	@Test
	void controlSharedRecipeInstanceWakesEveryWaiter() throws Exception {
		String path = this.basePath + "/shared";
		InterProcessMutex shared = new InterProcessMutex(client, path);
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Thread holder = new Thread(() -> {
			try {
				shared.acquire();
				held.countDown();
				release.await();
				shared.release();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		holder.start();
		assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
		List<Thread> waiters = new ArrayList<>();
		for (int i = 0; i < WAITERS; i++) {
			Thread waiter = new Thread(() -> {
				try {
					shared.acquire();
					shared.release();
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			waiters.add(waiter);
			waiter.start();
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> waiters.stream().allMatch(ZooKeeperTestSupport::isWaitingInRecipe));
		this.readers.start(this.basePath);
		release.countDown();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.readers.threads().size() >= WAITERS);
		for (Thread waiter : waiters) {
			waiter.join(30_000);
		}
	}

	/**
	 * Records which threads read the children of a lock path once started.
	 */
	static final class ChildrenReaders extends AdvancedTracerDriver {

		private final AtomicBoolean started = new AtomicBoolean();

		private final Set<String> threads = ConcurrentHashMap.newKeySet();

		private final AtomicInteger operations = new AtomicInteger();

		private final AtomicInteger childrenReads = new AtomicInteger();

		private volatile String root = "/";

		void start(String root) {
			this.root = root;
			this.threads.clear();
			this.operations.set(0);
			this.childrenReads.set(0);
			this.started.set(true);
		}

		Set<String> threads() {
			return this.threads;
		}

		int operations() {
			return this.operations.get();
		}

		int childrenReads() {
			return this.childrenReads.get();
		}

		@Override
		public void addTrace(OperationTrace trace) {
			if (!this.started.get() || trace.getPath() == null || !trace.getPath().startsWith(this.root)) {
				return;
			}
			this.operations.incrementAndGet();
			if (trace.getName().contains("GetChildren")) {
				this.threads.add(Thread.currentThread().getName());
				this.childrenReads.incrementAndGet();
			}
		}

		@Override
		public void addEvent(EventTrace trace) {
		}

	}

}
