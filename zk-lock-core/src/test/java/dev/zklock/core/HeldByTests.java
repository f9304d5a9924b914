package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link LockRegistry#heldBy(Thread)}: what a waiting thread holds, as a wait-for
 * graph counts it: nested locks of any name and mode, a re-entered lock once, a
 * READ inside WRITE as two nodes, and neither another thread's nor asynchronous
 * holds, nor a hold kept only for its shortest hold.
 */
class HeldByTests extends AbstractZooKeeperTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@Test
	void nestedLocksOfAnyNameAndModeAreEachHeld() {
		try (LockHandle orders = this.manager.acquire(request("orders", LockMode.MUTEX).build());
				LockHandle stock = this.manager.acquire(request("stock", LockMode.WRITE).build());
				LockHandle pool = this.manager.acquire(request("pool", LockMode.SEMAPHORE).permits(3).build())) {
			assertThat(heldByThisThread()).extracting(LockRegistry.Entry::name)
				.containsExactlyInAnyOrder("orders", "stock", "pool");
			assertThat(nodesHeldByThisThread()).hasSize(3).doesNotHaveDuplicates();
		}
		assertThat(heldByThisThread()).isEmpty();
	}

	@Test
	void aReenteredLockIsOneEntry() {
		try (LockHandle outer = this.manager.acquire(request("orders", LockMode.MUTEX).build());
				LockHandle inner = this.manager.acquire(request("orders", LockMode.MUTEX).build())) {
			assertThat(heldByThisThread()).hasSize(1);
			assertThat(nodesHeldByThisThread()).containsExactly(outer.nodePath());
		}
	}

	@Test
	void aReadInsideWriteIsTwoEntriesOfOnePath() {
		try (LockHandle write = this.manager.acquire(request("stock", LockMode.WRITE).build());
				LockHandle read = this.manager.acquire(request("stock", LockMode.READ).build())) {
			assertThat(heldByThisThread()).extracting(LockRegistry.Entry::mode)
				.containsExactlyInAnyOrder(LockMode.WRITE, LockMode.READ);
			assertThat(nodesHeldByThisThread()).hasSize(2).doesNotHaveDuplicates();
		}
	}

	@Test
	void anotherThreadsAndAsynchronousHoldsAreNotThisThreads() throws Exception {
		try (BackgroundHolder other = BackgroundHolder.hold(this.manager, request("other", LockMode.MUTEX).build());
				LockHandle own = this.manager.acquire(request("own", LockMode.MUTEX).build())) {
			AsyncLockHandle async = this.asyncManager.acquire(request("async", LockMode.MUTEX).build())
				.get(30, TimeUnit.SECONDS);
			try {
				assertThat(async.isAcquired()).isTrue();
				assertThat(heldByThisThread()).extracting(LockRegistry.Entry::name).containsExactly("own");
				assertThat(this.manager.getRegistry().heldBy(other.thread())).extracting(LockRegistry.Entry::name)
					.containsExactly("other");
			}
			finally {
				async.release().get(30, TimeUnit.SECONDS);
			}
		}
	}

	@Test
	void aLockKeptOnlyForItsShortestHoldIsNotHeld() {
		LockHandle handle = this.manager
			.acquire(request("orders", LockMode.MUTEX).minHold(Duration.ofSeconds(2)).build());
		assertThat(heldByThisThread()).hasSize(1);
		handle.close();
		// released by its work, the node stays until the shortest hold has passed
		assertThat(this.manager.getRegistry().heldCount()).isEqualTo(1);
		assertThat(heldByThisThread()).isEmpty();
		await().atMost(WAIT).until(() -> this.manager.getRegistry().heldCount() == 0);
	}

	@Test
	void aWaitingKeyIsNotHeld() throws Exception {
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), request("orders", LockMode.MUTEX).build())) {
			Thread waiter = new Thread(() -> {
				try (LockHandle handle = this.manager.acquire(request("orders", LockMode.MUTEX).build())) {
					// released at once: the test looks at the wait only
				}
			}, "waiter");
			waiter.start();
			await().atMost(WAIT).until(() -> this.manager.getRegistry().waitingCount() == 1);
			assertThat(this.manager.getRegistry().heldBy(waiter)).isEmpty();
			holder.close();
			waiter.join(WAIT.toMillis());
			assertThat(waiter.isAlive()).isFalse();
		}
	}

	private List<LockRegistry.Entry> heldByThisThread() {
		return this.manager.getRegistry().heldBy(Thread.currentThread());
	}

	private List<String> nodesHeldByThisThread() {
		return heldByThisThread().stream().map((entry) -> entry.node().path()).toList();
	}

	private static LockRequest.Builder request(String name, LockMode mode) {
		return LockRequest.named(name).keys("k").mode(mode).timeout(WAIT);
	}

}
