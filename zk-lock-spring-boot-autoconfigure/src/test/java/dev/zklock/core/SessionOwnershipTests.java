package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A waiter whose ZooKeeper session expires while it waits joins the queue again
 * with a node of its new session, within its timeout, as Curator's mutex does, and
 * is granted the lock once the holder leaves: in every mode, blocking and
 * asynchronous, and for several keys. Each test first shows the state it guards
 * against: the waiter's node of the old session is gone after the expiry, so the
 * waiter no longer has a place in the queue.
 */
class SessionOwnershipTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private TestingServer server;

	private CuratorFramework waiterClient;

	private CuratorFramework holderClient;

	private CuratorLockManager waiter;

	private CuratorLockManager holder;

	private String basePath;

	@BeforeEach
	void start() throws Exception {
		this.server = new TestingServer(true);
		this.basePath = "/ownership-" + UUID.randomUUID();
		this.waiterClient = ZooKeeperTestSupport.startClient(this.server.getConnectString());
		this.holderClient = ZooKeeperTestSupport.startClient(this.server.getConnectString());
		this.waiter = new CuratorLockManager(this.waiterClient, this.basePath, WAIT);
		this.holder = new CuratorLockManager(this.holderClient, this.basePath, WAIT);
	}

	@AfterEach
	void stop() throws Exception {
		this.waiter.close();
		this.holder.close();
		this.waiterClient.close();
		this.holderClient.close();
		this.server.close();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void aBlockingWaiterWhoseSessionExpiresJoinsTheQueueAgainAndGetsTheLock(LockMode mode) throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<List<Long>> granted = new CompletableFuture<>();
		LockHandle held = this.holder.acquire(request(blocker(mode), "42"));
		Thread thread = new Thread(() -> {
			try (LockHandle handle = this.waiter.acquire(request(mode, "42"))) {
				granted.complete(List.of(handle.isHeld() ? 1L : 0L, owner(handle.nodePath())));
				release.await();
			}
			catch (Throwable ex) {
				granted.completeExceptionally(ex);
			}
		});
		thread.start();
		long newSession = expireWhileWaiting(1);
		held.close();
		List<Long> result = granted.get(30, TimeUnit.SECONDS);
		assertThat(result.get(0)).as("held").isOne();
		assertThat(result.get(1)).as("the node's ephemeral owner").isEqualTo(newSession);
		release.countDown();
		thread.join(30_000);
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.holderClient, this.basePath)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void anAsynchronousWaiterWhoseSessionExpiresJoinsTheQueueAgainAndGetsTheLock(LockMode mode) throws Exception {
		LockHandle held = this.holder.acquire(request(blocker(mode), "42"));
		AsyncLockManager async = this.waiter.async(null);
		CompletableFuture<AsyncLockHandle> acquisition = async.acquire(request(mode, "42"));
		long newSession = expireWhileWaiting(1);
		held.close();
		AsyncLockHandle handle = acquisition.get(30, TimeUnit.SECONDS);
		assertThat(handle.isHeld()).isTrue();
		assertThat(owner(handle.nodePath())).isEqualTo(newSession);
		handle.release().get(30, TimeUnit.SECONDS);
		async.close();
	}

	@Test
	void aMultiKeyWaiterWhoseSessionExpiresTakesEveryKeyAgain() throws Exception {
		// the waiter takes "a", then waits for "b"; "a" goes with the session
		LockHandle held = this.holder.acquire(request(LockMode.MUTEX, "b"));
		AsyncLockManager async = this.waiter.async(null);
		CompletableFuture<AsyncLockHandle> acquisition = async
			.acquire(LockRequest.named("orders").keys("a", "b").timeout(WAIT).build());
		long newSession = expireWhileWaiting(2);
		held.close();
		AsyncLockHandle handle = acquisition.get(30, TimeUnit.SECONDS);
		assertThat(handle.isHeld()).isTrue();
		assertThat(owner(handle.nodePath("a"))).isEqualTo(newSession);
		assertThat(owner(handle.nodePath("b"))).isEqualTo(newSession);
		handle.release().get(30, TimeUnit.SECONDS);
		async.close();
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.holderClient, this.basePath)).isEmpty();
	}

	// Waits until the waiter has its nodes, expires its session, and shows that its old nodes are gone
	private long expireWhileWaiting(int waiterNodes) throws Exception {
		long oldSession = ZooKeeperSessions.sessionId(this.waiterClient);
		await().atMost(WAIT).until(() -> nodesOf(oldSession).size() >= waiterNodes);
		List<String> oldNodes = nodesOf(oldSession);
		ZooKeeperSessions.expire(this.waiterClient);
		await().atMost(WAIT).until(() -> this.waiterClient.getZookeeperClient().isConnected()
				&& ZooKeeperSessions.sessionId(this.waiterClient) != oldSession);
		for (String node : oldNodes) {
			assertThat(this.holderClient.checkExists().forPath(node)).as("old node %s", node).isNull();
		}
		return ZooKeeperSessions.sessionId(this.waiterClient);
	}

	private List<String> nodesOf(long session) throws Exception {
		List<String> nodes = new ArrayList<>();
		for (String node : ZooKeeperTestSupport.ephemeralNodes(this.holderClient, this.basePath)) {
			if (owner(node) == session) {
				nodes.add(node);
			}
		}
		return nodes;
	}

	private long owner(String node) throws Exception {
		return this.holderClient.checkExists().forPath(node).getEphemeralOwner();
	}

	// A READ waits behind a writer; the others behind their own mode
	private static LockMode blocker(LockMode mode) {
		return (mode == LockMode.READ) ? LockMode.WRITE : mode;
	}

	private static LockRequest request(LockMode mode, String key) {
		LockRequest.Builder builder = LockRequest.named("orders").keys(key).mode(mode).timeout(WAIT);
		return (mode == LockMode.SEMAPHORE) ? builder.permits(1).build() : builder.build();
	}

}
