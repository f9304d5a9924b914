package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ZooKeeperProxy;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A waiter whose ZooKeeper session expires while it waits joins the queue again
 * with a node of its new session, within its timeout, as Curator's mutex does, and
 * is granted the lock once the holder leaves: in every mode, blocking and
 * asynchronous, and for several keys. Each test first shows the state it guards
 * against: the waiter's node of the old session is gone after the expiry, so the
 * waiter no longer has a place in the queue; or, when only the client gave the
 * session up and the server still keeps it, the old node is still listed after
 * the reconnect, where it must count neither as held nor as the waiter's place.
 */
class SessionOwnershipTests {

	private static final Logger logger = LoggerFactory.getLogger(SessionOwnershipTests.class);

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

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void aWaiterWhoseOldNodesAreStillListedAfterItsSessionEndedQueuesWithNodesOfTheNewSession(LockMode mode)
			throws Exception {
		LockHandle held = this.holder.acquire(request(blocker(mode), "42"));
		try (ZooKeeperProxy proxy = ZooKeeperProxy.start("waiter", List.of(this.server.getPort()));
				CuratorFramework client = ZooKeeperTestSupport.startClient(proxy.connectString());
				CuratorLockManager manager = new CuratorLockManager(client, this.basePath, WAIT);
				AsyncLockManager async = manager.async(null)) {
			CompletableFuture<Void> lost = new CompletableFuture<>();
			client.getConnectionStateListenable().addListener((c, state) -> {
				if (state == ConnectionState.LOST) {
					lost.complete(null);
				}
			});
			CompletableFuture<AsyncLockHandle> acquisition = async.acquire(request(mode, "42"));
			long oldSession = ZooKeeperSessions.sessionId(client);
			await().atMost(WAIT).until(() -> !nodesOf(oldSession).isEmpty());
			List<String> oldNodes = nodesOf(oldSession);
			// the client gives its session up, as Curator does after a session timeout while suspended, and
			// cannot reconnect yet; the server keeps the session
			proxy.blackhole();
			ZooKeeperSessions.expireOnClient(client);
			lost.get(30, TimeUnit.SECONDS);
			// control: the session is over for the client, yet its nodes are still listed, owned by it
			assertThat(nodesOf(oldSession)).as("old-session nodes after the client gave the session up")
				.containsExactlyInAnyOrderElementsOf(oldNodes);
			// the server sees the old connection dropped, nothing it sent while closing; it keeps the session
			proxy.reset();
			proxy.pass();
			await().atMost(WAIT).until(() -> client.getZookeeperClient().isConnected()
					&& ZooKeeperSessions.sessionId(client) != oldSession);
			long reconnectedAt = System.nanoTime();
			long newSession = ZooKeeperSessions.sessionId(client);
			// while the holder still holds, the waiter gives them up and queues with nodes of the new session, long
			// before the server would end the old session (15 s after its last traffic) and take them away itself
			await().atMost(Duration.ofSeconds(5))
				.until(() -> nodesOf(oldSession).isEmpty() && !nodesOf(newSession).isEmpty());
			long requeuedAt = System.nanoTime();
			assertThat(acquisition).isNotDone();
			held.close();
			AsyncLockHandle handle = acquisition.get(30, TimeUnit.SECONDS);
			assertThat(handle.isHeld()).isTrue();
			assertThat(owner(handle.nodePath())).isEqualTo(newSession);
			assertThat(oldNodes).doesNotContain(handle.nodePath());
			handle.release().get(30, TimeUnit.SECONDS);
			assertThat(ZooKeeperTestSupport.ephemeralNodes(this.holderClient, this.basePath)).isEmpty();
			logger.info("Expiry while waiting, old session kept by the server, {}: {} old node(s) listed after the "
					+ "session was given up; queued again with the new session {} ms after the reconnect", mode,
					oldNodes.size(), TimeUnit.NANOSECONDS.toMillis(requeuedAt - reconnectedAt));
		}
	}

	// The modes whose waiter watches one node ahead with a read; a SEMAPHORE's first waiter watches the whole queue
	// with a read of its children, whose answer is checked for the session like any read of the queue
	@ParameterizedTest
	@EnumSource(names = { "MUTEX", "READ", "WRITE" })
	void aWaiterWhoseSessionEndsWhileItsWatchIsBeingSetQueuesWithTheNewSessionAtOnce(LockMode mode) throws Exception {
		LockHandle held = this.holder.acquire(request(blocker(mode), "42"));
		try (ZooKeeperProxy proxy = ZooKeeperProxy.start("waiter", List.of(this.server.getPort()));
				CuratorFramework client = ZooKeeperTestSupport.startClient(proxy.connectString());
				CuratorLockManager manager = new CuratorLockManager(client, this.basePath, WAIT);
				AsyncLockManager async = manager.async(null)) {
			String ahead = held.nodePath().substring(held.nodePath().lastIndexOf('/') + 1);
			// the server sets the waiter's watch on the node ahead, but the answer never reaches the client: no
			// watcher is registered there, so none hears that the session ended
			CompletableFuture<Long> trapped = proxy.blackholeAfterNextGetData(ahead);
			long oldSession = ZooKeeperSessions.sessionId(client);
			CompletableFuture<AsyncLockHandle> acquisition = async.acquire(request(mode, "42"));
			trapped.get(10, TimeUnit.SECONDS);
			List<String> oldNodes = nodesOf(oldSession);
			assertThat(oldNodes).hasSize(1);
			// the client gives its session up while the read is in flight; the server keeps the old session
			ZooKeeperSessions.expireOnClient(client, proxy);
			await().atMost(WAIT).until(() -> client.getZookeeperClient().isConnected()
					&& ZooKeeperSessions.sessionId(client) != oldSession);
			long newSession = ZooKeeperSessions.sessionId(client);
			// Curator sends the read again on the new session; its answer must not make the old node a place in the
			// queue: the waiter queues with the new session while the holder still holds
			await().atMost(Duration.ofSeconds(5))
				.until(() -> nodesOf(oldSession).isEmpty() && !nodesOf(newSession).isEmpty());
			assertThat(acquisition).isNotDone();
			held.close();
			AsyncLockHandle handle = acquisition.get(30, TimeUnit.SECONDS);
			assertThat(owner(handle.nodePath())).isEqualTo(newSession);
			handle.release().get(30, TimeUnit.SECONDS);
		}
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
