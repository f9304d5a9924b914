package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AsyncLockManager} against a real ZooKeeper server: it shares paths and
 * protocol with the synchronous locks, releases from any thread and takes every
 * mode.
 */
class AsyncLockManagerTests {

	private final String basePath = "/async-core/" + UUID.randomUUID();

	private CuratorFramework client;

	private CuratorLockManager syncManager;

	private AsyncLockManager asyncManager;

	@BeforeEach
	void start() {
		this.client = TestZooKeeper.newClient();
		this.syncManager = new CuratorLockManager(this.client, this.basePath, Duration.ofSeconds(10));
		this.asyncManager = new AsyncLockManager(this.client, this.basePath, Duration.ofSeconds(10));
	}

	@AfterEach
	void stop() {
		this.asyncManager.close();
		this.syncManager.close();
		this.client.close();
	}

	@Test
	void asyncAndSyncMutexHoldersOfOneKeyExcludeEachOther() throws Exception {
		LockRequest request = LockRequest.named("orders").keys("42").timeout(Duration.ofMillis(300)).build();
		try (LockHandle sync = this.syncManager.acquire(request)) {
			assertThat(sync.isAcquired()).isTrue();
			AsyncLockHandle blocked = this.asyncManager.acquire(request).get(10, TimeUnit.SECONDS);
			assertThat(blocked.isAcquired()).isFalse();
		}
		AsyncLockHandle async = this.asyncManager.acquire(request).get(10, TimeUnit.SECONDS);
		assertThat(async.isAcquired()).isTrue();
		assertThat(async.nodePath()).startsWith(this.syncManager.pathFor("orders", "42") + "/");
		assertThat(this.syncManager.acquire(request.withTimeout(Duration.ZERO)).isAcquired()).isFalse();
		// released by another thread than the one that acquired it
		Thread releaser = new Thread(() -> async.release().join());
		releaser.start();
		releaser.join(10_000);
		assertThat(this.client.getChildren().forPath(this.syncManager.pathFor("orders", "42"))).isEmpty();
		try (LockHandle sync = this.syncManager.acquire(request.withTimeout(Duration.ZERO))) {
			assertThat(sync.isAcquired()).isTrue();
		}
	}

	@Test
	void severalKeysAreAllOrNothing() throws Exception {
		LockRequest both = LockRequest.named("pair").keys("b", "a").timeout(Duration.ofMillis(300)).build();
		LockRequest onlyB = LockRequest.named("pair").keys("b").build();
		try (LockHandle sync = this.syncManager.acquire(onlyB)) {
			assertThat(this.asyncManager.acquire(both).get(10, TimeUnit.SECONDS).isAcquired()).isFalse();
			// "a" was taken first and given back when "b" timed out
			assertThat(this.client.getChildren().forPath(this.syncManager.pathFor("pair", "a"))).isEmpty();
		}
		AsyncLockHandle handle = this.asyncManager.acquire(both).get(10, TimeUnit.SECONDS);
		assertThat(handle.isHeld()).isTrue();
		assertThat(handle.fencingToken("b")).isGreaterThan(handle.fencingToken("a"));
		handle.release().get(10, TimeUnit.SECONDS);
		assertThat(handle.isAcquired()).isFalse();
	}

	@Test
	void waitersOnANewKeyQueueUpAndTakeTurnsInOrder() throws Exception {
		// the first key of a name: each create makes the parent first, so the listing sent
		// behind it finds no parent and the queue is read again
		LockRequest request = LockRequest.named("fresh").keys("k").build();
		List<CompletableFuture<AsyncLockHandle>> waiters = new ArrayList<>();
		int count = 5;
		for (int i = 0; i < count; i++) {
			waiters.add(this.asyncManager.acquire(request));
		}
		List<Long> tokens = new ArrayList<>();
		for (int turn = 0; turn < count; turn++) {
			AsyncLockHandle holder = CompletableFuture.anyOf(waiters.toArray(CompletableFuture[]::new))
				.thenApply(AsyncLockHandle.class::cast)
				.get(10, TimeUnit.SECONDS);
			waiters.removeIf((waiter) -> waiter.isDone() && waiter.join() == holder);
			assertThat(holder.isHeld()).isTrue();
			assertThat(waiters).noneMatch(CompletableFuture::isDone);
			tokens.add(holder.fencingToken());
			holder.release().get(10, TimeUnit.SECONDS);
		}
		assertThat(tokens).hasSize(count).isSorted().doesNotHaveDuplicates();
		assertThat(this.client.getChildren().forPath(this.syncManager.pathFor("fresh", "k"))).isEmpty();
		// a known key, free: the listing behind the create already shows our node first
		AsyncLockHandle again = this.asyncManager.acquire(request).get(10, TimeUnit.SECONDS);
		assertThat(again.isHeld()).isTrue();
		assertThat(again.fencingToken()).isGreaterThan(tokens.get(tokens.size() - 1));
		assertThat(this.syncManager.acquire(request.withTimeout(Duration.ZERO)).isAcquired()).isFalse();
		again.release().get(10, TimeUnit.SECONDS);
	}

	@Test
	void everyModeIsTakenAsynchronously() throws Exception {
		for (LockMode mode : LockMode.values()) {
			LockRequest request = LockRequest.named("orders-" + mode).keys("42").mode(mode).build();
			AsyncLockHandle handle = this.asyncManager.acquire(request).get(10, TimeUnit.SECONDS);
			assertThat(handle.isHeld()).as(mode.name()).isTrue();
			assertThat(handle.mode()).isEqualTo(mode);
			handle.release().get(10, TimeUnit.SECONDS);
		}
	}

}
