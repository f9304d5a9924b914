package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.zklock.LockHandle;
import dev.zklock.LockManager;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SEMAPHORE with several permits: never more holders than permits, and the wake-up
 * rule of its lease queue. The first waiter watches the whole queue, as any holder
 * may leave first; later waiters chain behind their predecessor, which wakes them
 * when it is promoted.
 */
class SemaphoreTests extends AbstractZooKeeperTests {

	private static final int PERMITS = 3;

	private static final int THREADS = 12;

	@Test
	void admitsExactlyPermitsHoldersAtOnce() throws Exception {
		LockRequest request = LockRequest.named("pool").keys("printer").mode(LockMode.SEMAPHORE).permits(PERMITS)
			.build();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger maxInside = new AtomicInteger();
		// the first PERMITS holders wait for each other: only possible if that many get in together
		CountDownLatch firstHolders = new CountDownLatch(PERMITS);
		CyclicBarrier start = new CyclicBarrier(THREADS);
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<Boolean>> results = new ArrayList<>();
			for (int i = 0; i < THREADS; i++) {
				results.add(pool.submit(() -> {
					start.await();
					boolean together = true;
					for (int round = 0; round < 3; round++) {
						try (LockHandle handle = this.manager.acquire(request)) {
							assertThat(handle.isAcquired()).isTrue();
							maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
							firstHolders.countDown();
							together &= firstHolders.await(20, TimeUnit.SECONDS);
							Thread.sleep(2);
							inside.decrementAndGet();
						}
					}
					return together;
				}));
			}
			for (Future<Boolean> result : results) {
				assertThat(result.get(60, TimeUnit.SECONDS)).isTrue();
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(maxInside).hasValue(PERMITS);
		assertThat(ephemeralNodes()).isEmpty();
	}

	@ParameterizedTest(name = "holder {0} of 3 leaves")
	@ValueSource(ints = { 0, 1, 2 })
	void anyHolderThatLeavesAdmitsTheFirstWaiter(int leaving) throws Exception {
		LockRequest request = semaphore();
		String path = this.manager.pathFor("pool", "printer");
		List<BackgroundHolder> holders = new ArrayList<>();
		try {
			for (int i = 0; i < PERMITS; i++) {
				holders.add(BackgroundHolder.hold(this.manager, request));
			}
			Waiter waiter = Waiter.start(this.manager, request);
			awaitNodes(path, PERMITS + 1);
			await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !waiter.holds());
			holders.remove(leaving).close();
			await().atMost(Duration.ofSeconds(10)).until(waiter::holds);
			waiter.close();
		}
		finally {
			for (BackgroundHolder holder : holders) {
				holder.close();
			}
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void waitersAreAdmittedInTheOrderTheyQueued() throws Exception {
		LockRequest request = semaphore();
		String path = this.manager.pathFor("pool", "printer");
		List<String> order = new CopyOnWriteArrayList<>();
		List<Waiter> waiters = new ArrayList<>();
		List<BackgroundHolder> holders = new ArrayList<>();
		for (int i = 0; i < PERMITS; i++) {
			holders.add(BackgroundHolder.hold(this.manager, request));
		}
		for (int i = 0; i < 6; i++) {
			String name = "waiter-" + i;
			waiters.add(Waiter.start(this.manager, request, () -> order.add(name)));
			awaitNodes(path, PERMITS + i + 1);
		}
		// one permit freed at a time, each admission awaited before the next: the order is the queue's, not that of
		// threads admitted together (with every holder leaving at once, three waiters' callbacks raced: 0, 2, 1)
		List<AutoCloseable> leaving = new ArrayList<>(holders);
		leaving.addAll(waiters);
		for (int i = 0; i < waiters.size(); i++) {
			leaving.get(i).close();
			int admitted = i + 1;
			await().atMost(Duration.ofSeconds(10)).until(() -> order.size() == admitted);
		}
		for (int i = waiters.size(); i < leaving.size(); i++) {
			leaving.get(i).close();
		}
		assertThat(order).containsExactly("waiter-0", "waiter-1", "waiter-2", "waiter-3", "waiter-4", "waiter-5");
		assertThat(ephemeralNodes()).isEmpty();
	}

	/**
	 * Every holder leaves at once: the first waiter is promoted and wakes the one
	 * behind it, which is promoted and wakes the next, until the permits are taken;
	 * the waiters behind them go on waiting.
	 */
	@Test
	void promotedWaitersWakeTheWaitersBehindThemUntilThePermitsAreTaken() throws Exception {
		LockRequest request = semaphore();
		String path = this.manager.pathFor("pool", "printer");
		List<BackgroundHolder> holders = new ArrayList<>();
		for (int i = 0; i < PERMITS; i++) {
			holders.add(BackgroundHolder.hold(this.manager, request));
		}
		List<Waiter> waiters = new ArrayList<>();
		for (int i = 0; i < 2 * PERMITS; i++) {
			waiters.add(Waiter.start(this.manager, request));
			awaitNodes(path, PERMITS + i + 1);
		}
		for (BackgroundHolder holder : holders) {
			holder.close();
		}
		List<Waiter> admitted = waiters.subList(0, PERMITS);
		List<Waiter> behind = waiters.subList(PERMITS, 2 * PERMITS);
		await().atMost(Duration.ofSeconds(10)).until(() -> admitted.stream().allMatch(Waiter::holds));
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
			.until(() -> behind.stream().noneMatch(Waiter::holds));
		for (Waiter waiter : admitted) {
			waiter.close();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> behind.stream().allMatch(Waiter::holds));
		for (Waiter waiter : behind) {
			waiter.close();
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	private void awaitNodes(String path, int count) {
		await().atMost(Duration.ofSeconds(10)).until(() -> client.getChildren().forPath(path).size() == count);
	}

	private static LockRequest semaphore() {
		return LockRequest.named("pool").keys("printer").mode(LockMode.SEMAPHORE).permits(PERMITS)
			.timeout(Duration.ofSeconds(60)).build();
	}

	/**
	 * A thread that waits for the lock, holds it until closed, and tells when it got it.
	 */
	private static final class Waiter implements AutoCloseable {

		private final CountDownLatch release = new CountDownLatch(1);

		private final CompletableFuture<Boolean> acquired = new CompletableFuture<>();

		private final CompletableFuture<Void> done = new CompletableFuture<>();

		static Waiter start(LockManager manager, LockRequest request) {
			return start(manager, request, () -> {
			});
		}

		static Waiter start(LockManager manager, LockRequest request, Runnable onHold) {
			Waiter waiter = new Waiter();
			new Thread(() -> {
				try (LockHandle handle = manager.acquire(request)) {
					if (handle.isAcquired()) {
						onHold.run();
					}
					waiter.acquired.complete(handle.isAcquired());
					waiter.release.await();
				}
				catch (Throwable ex) {
					waiter.acquired.completeExceptionally(ex);
				}
				waiter.done.complete(null);
			}, "semaphore-waiter").start();
			return waiter;
		}

		boolean holds() {
			return this.acquired.getNow(false);
		}

		@Override
		public void close() throws Exception {
			this.release.countDown();
			this.done.get(30, TimeUnit.SECONDS);
		}

	}

}
