package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockState;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import dev.zklock.core.Nodes.LockNode;

/**
 * {@link NodeAttempt#waitingNode()}: the node a waiter stands for in its key's
 * queue, which a wait-for graph follows: a queued attempt's own node in every
 * rule, a local waiter's tenure node, and none once the wait ended.
 */
class WaitingNodeTests extends AbstractZooKeeperTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@Test
	void aContendedMutexWaitsWithItsOwnNodeBehindTheHolder() throws Exception {
		LockRequest held = request("m", LockMode.MUTEX).build();
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, held)) {
			assertWaitsWithItsOwnNode(QueueRule.MUTEX, 1, held);
		}
	}

	@Test
	void aReadBehindAWriteHolderWaitsWithItsOwnNode() throws Exception {
		LockRequest held = request("rw", LockMode.WRITE).build();
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, held)) {
			assertWaitsWithItsOwnNode(QueueRule.READ, 1, held);
		}
	}

	@Test
	void aSemaphoreWaiterBehindEveryPermitWaitsWithItsOwnNode() throws Exception {
		LockRequest held = request("s", LockMode.SEMAPHORE).permits(2).build();
		try (BackgroundHolder first = BackgroundHolder.hold(this.manager, held);
				BackgroundHolder second = BackgroundHolder.hold(this.manager, held)) {
			assertWaitsWithItsOwnNode(QueueRule.SEMAPHORE, 2, held);
		}
	}

	@Test
	void anUncontendedAttemptHasNoWaitingNodeOnceItHolds() throws Exception {
		QueueAttempt attempt = new QueueAttempt(client, this.manager.pathFor("free", "k"), QueueRule.MUTEX, null, false,
				null, 0, 1);
		LockNode node = attempt.start().get(30, TimeUnit.SECONDS);
		assertThat(node).isNotNull();
		assertThat(attempt.waitingNode()).isNull();
		attempt.release().get(30, TimeUnit.SECONDS);
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void localWaitersWaitBehindTheTenureNodeThatHolds() throws Exception {
		LockRequest hot = request("hot", LockMode.MUTEX).localHandoff(true).build();
		CompletableFuture<AsyncLockHandle> waiting;
		LocalAttempt waiter;
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, hot)) {
			waiting = this.asyncManager.acquire(hot);
			waiter = await().atMost(WAIT).until(() -> localWaiters(), (waiters) -> waiters.size() == 1).get(0);
			String tenure = heldNodes(this.manager).get(0);
			assertThat(ephemeralNodes()).containsExactly(tenure);
			assertThat(waiter.waitingNode()).isEqualTo(tenure);
		}
		waiting.get(30, TimeUnit.SECONDS).release().get(30, TimeUnit.SECONDS);
		assertThat(waiter.waitingNode()).as("granted").isNull();
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
	}

	@Test
	void localWaitersWaitBehindTheTenureNodeStillQueued() throws Exception {
		LockRequest hot = request("hot", LockMode.MUTEX).localHandoff(true).build();
		List<CompletableFuture<AsyncLockHandle>> waiting = new ArrayList<>();
		List<LocalAttempt> waiters;
		try (BackgroundHolder other = BackgroundHolder.hold(otherManager(), request("hot", LockMode.MUTEX).build())) {
			waiting.add(this.asyncManager.acquire(hot));
			waiting.add(this.asyncManager.acquire(hot));
			waiters = await().atMost(WAIT).until(() -> localWaiters(), (found) -> found.size() == 2);
			await().atMost(WAIT).until(() -> ephemeralNodes().size() == 2);
			List<String> queued = ephemeralNodes();
			queued.removeAll(heldNodes(otherManager()));
			assertThat(queued).hasSize(1);
			await().atMost(WAIT).untilAsserted(() -> assertThat(waiters)
				.allSatisfy((waiter) -> assertThat(waiter.waitingNode()).isEqualTo(queued.get(0))));
		}
		for (CompletableFuture<AsyncLockHandle> handle : waiting) {
			handle.get(30, TimeUnit.SECONDS).release().get(30, TimeUnit.SECONDS);
		}
		assertThat(waiters).allSatisfy((waiter) -> assertThat(waiter.waitingNode()).isNull());
	}

	@Test
	void aLocalWaiterThatGaveUpHasNoWaitingNode() throws Exception {
		LockRequest hot = request("hot", LockMode.MUTEX).localHandoff(true).build();
		try (LockHandle held = this.manager.acquire(hot)) {
			CompletableFuture<AsyncLockHandle> waiting = this.asyncManager.acquire(hot);
			LocalAttempt waiter = await().atMost(WAIT).until(() -> localWaiters(), (found) -> found.size() == 1).get(0);
			assertThat(waiter.waitingNode()).isNotNull();
			waiting.cancel(false);
			await().atMost(WAIT).until(() -> this.manager.getRegistry().waitingCount() == 0);
			assertThat(waiter.waitingNode()).isNull();
		}
	}

	// Start an attempt behind the holders of the request, and check its node from creation to abandonment
	private void assertWaitsWithItsOwnNode(QueueRule rule, int permits, LockRequest held) throws Exception {
		String path = this.manager.pathFor(held.name(), held.keys().get(0));
		List<String> holders = heldNodes(this.manager);
		QueueAttempt attempt = new QueueAttempt(client, path, rule, null, false, null, 0, permits);
		CompletableFuture<LockNode> result = attempt.start();
		await().atMost(WAIT).until(attempt::isWatching);
		String waiting = attempt.waitingNode();
		assertThat(waiting).isNotNull();
		assertThat(ZKPaths.getPathAndNode(waiting).getPath()).isEqualTo(path);
		assertThat(ephemeralNodes()).contains(waiting).containsAll(holders).hasSize(holders.size() + 1);
		assertThat(holders).doesNotContain(waiting);
		attempt.abandon();
		assertThat(result.get(30, TimeUnit.SECONDS)).isNull();
		assertThat(attempt.waitingNode()).isNull();
		attempt.removed().get(30, TimeUnit.SECONDS);
		assertThat(ephemeralNodes()).doesNotContain(waiting);
	}

	private List<LocalAttempt> localWaiters() {
		List<LocalAttempt> waiters = new ArrayList<>();
		for (LockRegistry.Entry entry : this.manager.getRegistry().entries(EnumSet.of(LockState.WAITING))) {
			LocalAttempt local = entry.local();
			if (local != null) {
				waiters.add(local);
			}
		}
		return waiters;
	}

	private static List<String> heldNodes(CuratorLockManager manager) {
		List<String> nodes = new ArrayList<>();
		for (LockRegistry.Entry entry : manager.getRegistry().entries(LockRegistry.Entry.OWNED)) {
			nodes.add(entry.node().path());
		}
		return nodes;
	}

	private static LockRequest.Builder request(String name, LockMode mode) {
		return LockRequest.named(name).keys("k").mode(mode).timeout(WAIT);
	}

}
