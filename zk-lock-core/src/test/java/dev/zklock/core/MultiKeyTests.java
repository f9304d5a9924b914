package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockInfo;
import dev.zklock.LockRequest;
import dev.zklock.testsupport.TestThreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Several keys locked together.
 */
class MultiKeyTests extends AbstractZooKeeperTests {

	private static final int ROUNDS = 1_000;

	private int counter;

	@Test
	void oppositeKeyOrdersNeverDeadlock() throws Exception {
		CyclicBarrier start = new CyclicBarrier(2);
		long begin = System.nanoTime();
		try (TestThreads threads = new TestThreads("transfer")) {
			CompletableFuture<Void> ab = CompletableFuture.runAsync(() -> rounds(start, "a", "b"), threads);
			CompletableFuture<Void> ba = CompletableFuture.runAsync(() -> rounds(start, "b", "a"), threads);
			CompletableFuture.allOf(ab, ba).get(120, TimeUnit.SECONDS);
		}
		long millis = (System.nanoTime() - begin) / 1_000_000;
		System.out.printf("multi-key: %d rounds of {a,b} against {b,a} in %d ms (%.0f acquisitions/s)%n", ROUNDS,
				millis, 2_000.0 * ROUNDS / millis);
		assertThat(this.counter).isEqualTo(2 * ROUNDS);
		assertThat(ephemeralNodes()).isEmpty();
	}

	private void rounds(CyclicBarrier start, String... keys) {
		try {
			start.await();
			LockRequest request = LockRequest.named("transfer").keys(keys).timeout(Duration.ofSeconds(30)).build();
			for (int i = 0; i < ROUNDS; i++) {
				try (LockHandle handle = this.manager.acquire(request)) {
					assertThat(handle.isAcquired()).isTrue();
					this.counter = this.counter + 1;
				}
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void takesAllKeysOrNone() throws Exception {
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, LockRequest.named("transfer").keys("b").build())) {
			try (LockHandle handle = this.manager
				.acquire(LockRequest.named("transfer").keys("b", "a").timeout(Duration.ofMillis(200)).build())) {
				assertThat(handle.isAcquired()).isFalse();
			}
			assertThat(ephemeralNodes()).containsExactly(this.manager.pathFor("transfer", "b") + "/"
					+ client.getChildren().forPath(this.manager.pathFor("transfer", "b")).get(0));
			assertThat(acquireInOtherThread(LockRequest.named("transfer").keys("a").timeout(Duration.ZERO).build()))
				.isTrue();
		}
	}

	@Test
	void keysShareOneTimeoutBudget() throws Exception {
		Thread briefHolder = new Thread(() -> {
			try (LockHandle handle = this.manager.acquire(LockRequest.named("transfer").keys("a").build())) {
				Thread.sleep(1_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, LockRequest.named("transfer").keys("b").build())) {
			briefHolder.start();
			await().until(() -> this.manager.getRegistry().heldCount() == 2);
			long start = System.nanoTime();
			try (LockHandle handle = this.manager
				.acquire(LockRequest.named("transfer").keys("a", "b").timeout(Duration.ofMillis(1_500)).build())) {
				assertThat(handle.isAcquired()).isFalse();
			}
			// a fresh budget per key would take at least 1,000 + 1,500 ms
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(1_490),
					Duration.ofMillis(2_300));
			briefHolder.join(10_000);
			assertThat(ephemeralNodes()).hasSize(1);
		}
	}

	@Test
	void locksSortedDistinctKeys() throws Exception {
		try (LockHandle handle = this.manager.acquire(LockRequest.named("transfer").keys("c", "a", "c", "b").build())) {
			assertThat(handle.keys()).containsExactly("a", "b", "c");
			assertThat(ephemeralNodes()).hasSize(3);
			assertThat(this.manager.getRegistry().snapshot()).extracting(LockInfo::key)
				.containsExactlyInAnyOrder("a", "b", "c");
		}
	}

	@Test
	void lockWithoutKeysUsesReservedSegment() throws Exception {
		try (LockHandle handle = this.manager.acquire(LockRequest.named("report").build())) {
			assertThat(handle.keys()).isEmpty();
			String path = this.basePath + "/report/" + LockPaths.NO_KEY;
			assertThat(this.manager.pathFor("report", null)).isEqualTo(path);
			assertThat(client.getChildren().forPath(path)).hasSize(1);
			assertThat(acquireInOtherThread(LockRequest.named("report").timeout(Duration.ZERO).build())).isFalse();
			assertThat(acquireInOtherThread(LockRequest.named("report").keys("#nokey").timeout(Duration.ZERO).build()))
				.isTrue();
		}
		assertThat(List.copyOf(ephemeralNodes())).isEmpty();
	}

}
