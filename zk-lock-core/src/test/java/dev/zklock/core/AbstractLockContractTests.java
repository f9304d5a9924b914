package dev.zklock.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockState;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The contract every lock kind must meet, run against a real in-JVM ZooKeeper.
 * Subclasses say how to build the lock under test and a request it excludes.
 */
abstract class AbstractLockContractTests extends AbstractZooKeeperTests {

	private static final int THREADS = 16;

	private static final int ROUNDS_PER_THREAD = 15;

	/**
	 * The lock under test.
	 */
	protected abstract LockRequest.Builder lock(String key);

	/**
	 * A request that the lock under test excludes, and is excluded by.
	 */
	protected LockRequest.Builder excluder(String key) {
		return lock(key);
	}

	/**
	 * Whether two holders of {@link #lock(String)} may overlap (readers).
	 */
	protected boolean sharedAmongThemselves() {
		return false;
	}

	/**
	 * How many ephemeral nodes one holder of {@link #lock(String)} owns.
	 */
	protected int nodesPerHold() {
		return 1;
	}

	/**
	 * How many waiters have taken their place in the queue: by default, the nodes
	 * in ZooKeeper beyond those of the holders; with local hand-off, the waiters in
	 * the registry, as local waiters queue in the process.
	 */
	protected int queuedWaiters(int holders) throws Exception {
		return queueNodes().size() - holders;
	}

	@Test
	void excludesUnderContention(@TempDir Path dir) throws Exception {
		Path counter = dir.resolve("counter");
		Files.writeString(counter, "0");
		AtomicInteger tornReads = new AtomicInteger();
		AtomicInteger writes = new AtomicInteger();
		CyclicBarrier start = new CyclicBarrier(THREADS);
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				boolean writer = (t % 2 == 1) || !sharedAmongThemselves();
				LockRequest request = ((t % 2 == 1) ? excluder("shared") : lock("shared")).build();
				futures.add(pool.submit(() -> {
					start.await();
					for (int i = 0; i < ROUNDS_PER_THREAD; i++) {
						try (LockHandle handle = this.manager.acquire(request)) {
							assertThat(handle.isAcquired()).isTrue();
							int before = Integer.parseInt(Files.readString(counter));
							Thread.sleep(1);
							if (writer) {
								Files.writeString(counter, Integer.toString(before + 1));
								writes.incrementAndGet();
							}
							else if (Integer.parseInt(Files.readString(counter)) != before) {
								tornReads.incrementAndGet();
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> future : futures) {
				future.get(90, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(Integer.parseInt(Files.readString(counter))).isEqualTo(writes.get());
		assertThat(writes.get()).isEqualTo(
				sharedAmongThemselves() ? THREADS / 2 * ROUNDS_PER_THREAD : THREADS * ROUNDS_PER_THREAD);
		assertThat(tornReads).hasValue(0);
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void timeoutReturnsNotAcquired() throws Exception {
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, lock("k").build())) {
			long start = System.nanoTime();
			try (LockHandle handle = this.manager.acquire(excluder("k").timeout(Duration.ofMillis(300)).build())) {
				long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
				assertThat(handle.isAcquired()).isFalse();
				assertThat(elapsedMillis).isBetween(290L, 10_000L);
			}
			assertThat(ephemeralNodes()).hasSize(nodesPerHold());
		}
		assertThat(ephemeralNodes()).isEmpty();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
	}

	@Test
	void zeroTimeoutTriesOnceWithoutWaiting() throws Exception {
		try (LockHandle free = this.manager.acquire(lock("k").timeout(Duration.ZERO).build())) {
			assertThat(free.isAcquired()).isTrue();
		}
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, lock("k").build())) {
			long start = System.nanoTime();
			try (LockHandle handle = this.manager.acquire(excluder("k").timeout(Duration.ZERO).build())) {
				assertThat(handle.isAcquired()).isFalse();
			}
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			assertThat(ephemeralNodes()).hasSize(nodesPerHold());
		}
	}

	@Test
	void closeReleasesForOtherThreads() throws Exception {
		LockHandle handle = this.manager.acquire(lock("k").build());
		assertThat(handle.isAcquired()).isTrue();
		assertThat(acquireInOtherThread(excluder("k").timeout(Duration.ZERO).build())).isFalse();
		handle.close();
		assertThat(handle.isAcquired()).isFalse();
		handle.close();
		assertThat(acquireInOtherThread(excluder("k").timeout(Duration.ZERO).build())).isTrue();
	}

	@Test
	void removesNodeAfterRelease() throws Exception {
		try (LockHandle handle = this.manager.acquire(lock("k").build())) {
			assertThat(handle.isAcquired()).isTrue();
			assertThat(ephemeralNodes()).hasSize(nodesPerHold())
				.allSatisfy((path) -> assertThat(path).startsWith(this.basePath + "/"));
			assertThat(this.manager.getRegistry().snapshot()).hasSize(nodesPerHold())
				.allSatisfy((info) -> assertThat(info.state()).isEqualTo(LockState.HELD));
		}
		assertThat(ephemeralNodes()).isEmpty();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		assertThat(this.manager.getRegistry().heldCount()).isZero();
	}

	@Test
	void interruptWhileWaitingRemovesNodeAndKeepsFlag() throws Exception {
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, lock("k").build())) {
			CompletableFuture<Throwable> failure = new CompletableFuture<>();
			CompletableFuture<Boolean> flagKept = new CompletableFuture<>();
			Thread waiter = new Thread(() -> {
				try (LockHandle handle = this.manager.acquire(excluder("k").timeout(Duration.ofSeconds(60)).build())) {
					failure.complete(null);
				}
				catch (Throwable ex) {
					failure.complete(ex);
				}
				flagKept.complete(Thread.currentThread().isInterrupted());
			}, "waiter");
			waiter.start();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> failure.isDone() || ZooKeeperTestSupport.isWaitingInRecipe(waiter));
			assertThat(failure).as("the waiter should be queued, but it finished with %s", failure.getNow(null))
				.isNotDone();
			assertThat(queuedWaiters(nodesPerHold())).isPositive();
			waiter.interrupt();
			assertThat(failure.get(20, TimeUnit.SECONDS)).isInstanceOf(LockException.class)
				.hasMessageContaining("Interrupted");
			assertThat(flagKept.get(5, TimeUnit.SECONDS)).isTrue();
			assertThat(ephemeralNodes()).hasSize(nodesPerHold());
			assertThat(this.manager.getRegistry().waitingCount()).isZero();
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void reentersThreeDeepWithOneNodeAndReleasesAtOutermostClose() throws Exception {
		LockHandle outer = this.manager.acquire(lock("k").build());
		LockHandle middle = this.manager.acquire(lock("k").build());
		LockHandle inner = this.manager.acquire(lock("k").timeout(Duration.ZERO).build());
		assertThat(List.of(outer, middle, inner)).allSatisfy((handle) -> assertThat(handle.isAcquired()).isTrue());
		assertThat(ephemeralNodes()).hasSize(nodesPerHold());
		assertThat(this.manager.getRegistry().heldCount()).isEqualTo(nodesPerHold());
		inner.close();
		middle.close();
		assertThat(ephemeralNodes()).hasSize(nodesPerHold());
		assertThat(acquireInOtherThread(excluder("k").timeout(Duration.ZERO).build())).isFalse();
		outer.close();
		assertThat(ephemeralNodes()).isEmpty();
		assertThat(acquireInOtherThread(excluder("k").timeout(Duration.ZERO).build())).isTrue();
	}

	@Test
	void interruptedThreadFailsFastWithoutCreatingNodes() {
		Thread.currentThread().interrupt();
		try {
			assertThatExceptionOfType(LockException.class).isThrownBy(() -> this.manager.acquire(lock("k").build()))
				.withMessageContaining("interrupted");
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
	}

	@ParameterizedTest
	@EnumSource(LockApi.class)
	void excludesWithAnOverlapCounter(LockApi api) throws Exception {
		int workers = 8;
		int rounds = 10;
		AtomicInteger sharers = new AtomicInteger();
		AtomicInteger excluders = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger sections = new AtomicInteger();
		CyclicBarrier start = new CyclicBarrier(workers);
		ExecutorService pool = Executors.newFixedThreadPool(workers);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int w = 0; w < workers; w++) {
				boolean excluder = (w % 2 == 1) || !sharedAmongThemselves();
				LockRequest request = ((w % 2 == 1) ? excluder("shared") : lock("shared")).build();
				futures.add(pool.submit(() -> {
					start.await();
					for (int i = 0; i < rounds; i++) {
						try (LockApi.Held held = api.acquire(this.manager, this.asyncManager, request)) {
							assertThat(held.acquired()).isTrue();
							AtomicInteger mine = excluder ? excluders : sharers;
							mine.incrementAndGet();
							if (excluders.get() > (excluder ? 1 : 0) || (excluder && sharers.get() > 0)) {
								overlaps.incrementAndGet();
							}
							Thread.sleep(1);
							mine.decrementAndGet();
							sections.incrementAndGet();
						}
					}
					return null;
				}));
			}
			for (Future<?> future : futures) {
				future.get(90, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(overlaps).hasValue(0);
		assertThat(sections).hasValue(workers * rounds);
		assertThat(ephemeralNodes()).isEmpty();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(LockApi.class)
	void grantsWaitersInArrivalOrder(LockApi api) throws Exception {
		int waiters = 4;
		List<Integer> order = new CopyOnWriteArrayList<>();
		List<LockApi.Waiter> started = new ArrayList<>();
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, lock("k").build())) {
			for (int i = 0; i < waiters; i++) {
				int index = i;
				started.add(api.startWaiting(this.manager, this.asyncManager,
						excluder("k").timeout(Duration.ofSeconds(60)).build(), () -> order.add(index)));
				await().atMost(Duration.ofSeconds(20)).until(() -> queuedWaiters(nodesPerHold()) > index);
			}
			assertThat(order).isEmpty();
		}
		for (LockApi.Waiter waiter : started) {
			assertThat(waiter.outcome().get(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(order).containsExactly(0, 1, 2, 3);
		await().atMost(Duration.ofSeconds(10)).until(() -> ephemeralNodes().isEmpty());
	}

	@ParameterizedTest
	@EnumSource(LockApi.class)
	void timeoutOrSingleTryLeavesNoNodeBehind(LockApi api) throws Exception {
		try (LockApi.Held free = api.acquire(this.manager, this.asyncManager, lock("k").timeout(Duration.ZERO)
			.build())) {
			assertThat(free.acquired()).isTrue();
		}
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, lock("k").build())) {
			long start = System.nanoTime();
			try (LockApi.Held held = api.acquire(this.manager, this.asyncManager,
					excluder("k").timeout(Duration.ofMillis(300)).build())) {
				assertThat(held.acquired()).isFalse();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(290),
						Duration.ofSeconds(10));
			}
			assertThat(ephemeralNodes()).hasSize(nodesPerHold());
			long once = System.nanoTime();
			try (LockApi.Held held = api.acquire(this.manager, this.asyncManager,
					excluder("k").timeout(Duration.ZERO).build())) {
				assertThat(held.acquired()).isFalse();
			}
			assertThat(Duration.ofNanos(System.nanoTime() - once)).isLessThan(Duration.ofSeconds(2));
			assertThat(ephemeralNodes()).hasSize(nodesPerHold());
		}
		assertThat(ephemeralNodes()).isEmpty();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(LockApi.class)
	void abandoningAWaiterRemovesItsNode(LockApi api) throws Exception {
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, lock("k").build())) {
			LockApi.Waiter waiter = api.startWaiting(this.manager, this.asyncManager,
					excluder("k").timeout(Duration.ofSeconds(60)).build(), () -> {
					});
			await().atMost(Duration.ofSeconds(20))
				.until(() -> this.manager.getRegistry().waitingCount() == 1
						&& queuedWaiters(nodesPerHold()) > 0);
			waiter.abandon().run();
			assertThatExceptionOfType(Exception.class)
				.isThrownBy(() -> waiter.outcome().get(20, TimeUnit.SECONDS))
				.satisfies((ex) -> assertThat(ex.toString() + ex.getCause()).containsAnyOf("Interrupted",
						"Cancellation"));
			await().atMost(Duration.ofSeconds(10)).until(() -> ephemeralNodes().size() == nodesPerHold());
			await().atMost(Duration.ofSeconds(10)).until(() -> this.manager.getRegistry().waitingCount() == 0);
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(LockApi.class)
	void releasesWhenTheGuardedWorkFails(LockApi api) throws Exception {
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> {
			try (LockApi.Held held = api.acquire(this.manager, this.asyncManager, lock("k").build())) {
				assertThat(held.acquired()).isTrue();
				throw new IllegalStateException("the guarded work failed");
			}
		});
		assertThat(acquireInOtherThread(excluder("k").timeout(Duration.ZERO).build())).isTrue();
		assertThat(ephemeralNodes()).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(LockApi.class)
	void fencingTokensIncrease(LockApi api) throws Exception {
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			try (LockApi.Held held = api.acquire(this.manager, this.asyncManager, lock("k").build())) {
				tokens.add(held.fencingToken());
			}
			try (LockApi.Held held = api.acquire(this.manager, this.asyncManager, excluder("k").build())) {
				tokens.add(held.fencingToken());
			}
		}
		assertThat(tokens).doesNotContain(0L).isSorted().doesNotHaveDuplicates();
		assertThat(ephemeralNodes()).isEmpty();
	}

}
