package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockHandle;
import dev.zklock.LockLossReason;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ZooKeeperProxy;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The session ends while a lock is held, and the client reconnects with a new
 * session while the server still keeps the old one (as after Curator's own session
 * expiry, which it declares once a session timeout passed while suspended). The
 * hold is lost for good, never held again on its old node; a new acquisition by
 * the same client gets a node of the new session, and nothing is left behind. In
 * every mode and for several keys.
 * <p>
 * Control: right after the reconnect the old node is still listed under its lock
 * path, owned by the old session, so a check of "is my node among the children"
 * would still call the lock held; and it blocks the new acquisition until it goes.
 */
class SessionExpiryWhileHoldingTests {

	private static final Logger logger = LoggerFactory.getLogger(SessionExpiryWhileHoldingTests.class);

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final List<LockLossReason> reasons = new CopyOnWriteArrayList<>();

	private TestingServer server;

	private ZooKeeperProxy proxy;

	private CuratorFramework client;

	private CuratorFramework observer;

	private CuratorLockManager manager;

	private AsyncLockManager async;

	private String basePath;

	private final CompletableFuture<Long> reconnected = new CompletableFuture<>();

	@BeforeEach
	void start() throws Exception {
		this.server = new TestingServer(true);
		this.basePath = "/expiry-holding-" + UUID.randomUUID();
		this.proxy = ZooKeeperProxy.start("holder", List.of(this.server.getPort()));
		this.client = ZooKeeperTestSupport.startClient(this.proxy.connectString());
		this.observer = ZooKeeperTestSupport.startClient(this.server.getConnectString());
		CompletableFuture<Long> lost = new CompletableFuture<>();
		this.client.getConnectionStateListenable().addListener((c, state) -> {
			if (state == ConnectionState.LOST) {
				lost.complete(System.nanoTime());
			}
			else if (state == ConnectionState.RECONNECTED && lost.isDone()) {
				this.reconnected.complete(System.nanoTime());
			}
		});
		this.manager = new CuratorLockManager(this.client, this.basePath, WAIT);
		this.manager.addLockLossListener((lock, reason) -> this.reasons.add(reason));
		this.async = this.manager.async(null);
	}

	@AfterEach
	void stop() throws Exception {
		this.async.close();
		this.manager.close();
		this.client.close();
		this.observer.close();
		this.proxy.close();
		this.server.close();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void aHoldWhoseSessionEndsIsLostAndANewAcquisitionGetsANodeOfTheNewSession(LockMode mode) throws Exception {
		expireWhileHolding(mode, List.of("42"));
	}

	@Test
	void aMultiKeyHoldWhoseSessionEndsIsLostOnEveryKey() throws Exception {
		expireWhileHolding(LockMode.MUTEX, List.of("a", "b"));
	}

	@Test
	void withoutARelease_theOldNodeBlocksTheNewAcquisitionUntilTheServerEndsItsSession() throws Exception {
		AsyncLockHandle held = this.async.acquire(request(LockMode.MUTEX, List.of("42"))).get(30, TimeUnit.SECONDS);
		String oldNode = held.nodePath();
		long oldSession = ZooKeeperSessions.expireOnClient(this.client, this.proxy);
		long reconnectedAt = this.reconnected.get(30, TimeUnit.SECONDS);
		long newSession = ZooKeeperSessions.sessionId(this.client);
		assertThat(owner(oldNode)).as("control: old node still listed").isEqualTo(oldSession);
		CompletableFuture<AsyncLockHandle> again = this.async.acquire(request(LockMode.MUTEX, List.of("42")));
		AsyncLockHandle next = again.get(30, TimeUnit.SECONDS);
		long grantedAt = System.nanoTime();
		assertThat(owner(oldNode)).as("old node when the new grant came").isZero();
		assertThat(owner(next.nodePath())).isEqualTo(newSession);
		assertThat(held.isHeld()).isFalse();
		next.release().get(30, TimeUnit.SECONDS);
		held.release().get(30, TimeUnit.SECONDS);
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.observer, this.basePath)).isEmpty();
		logger.info("Expiry while holding, no release: the old node stayed listed and the new acquisition was granted "
				+ "{} ms after the reconnect", millis(grantedAt - reconnectedAt));
	}

	@Test
	void aReadTakenInsideAWriteLostWithItsSessionQueuesAsAnyReaderDoes() throws Exception {
		CuratorLockManager other = new CuratorLockManager(this.observer, this.basePath, WAIT);
		try (LockHandle write = this.manager.acquire(request(LockMode.WRITE, List.of("42")))) {
			ZooKeeperSessions.expire(this.client);
			await().atMost(WAIT).until(() -> !write.isHeld() && this.client.getZookeeperClient().isConnected());
			try (LockHandle otherWrite = other.acquire(request(LockMode.WRITE, List.of("42")))) {
				// control: the old WRITE node is gone and another process holds WRITE now
				assertThat(otherWrite.isHeld()).isTrue();
				assertThat(owner(write.nodePath())).isZero();
				// a READ that still sorted itself at the lost WRITE's node would hold at once, beside that writer
				LockRequest read = LockRequest.named("orders").keys("42").mode(LockMode.READ)
					.timeout(Duration.ofSeconds(1)).build();
				try (LockHandle nested = this.manager.acquire(read)) {
					assertThat(nested.isAcquired()).as("READ beside another process's WRITE").isFalse();
				}
			}
		}
		finally {
			other.close();
		}
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.observer, this.basePath)).isEmpty();
	}

	private void expireWhileHolding(LockMode mode, List<String> keys) throws Exception {
		AsyncLockHandle held = this.async.acquire(request(mode, keys)).get(30, TimeUnit.SECONDS);
		List<String> oldNodes = new ArrayList<>();
		for (String key : keys) {
			oldNodes.add(held.nodePath(key));
		}
		long oldSession = ZooKeeperSessions.expireOnClient(this.client, this.proxy);
		long reconnectedAt = this.reconnected.get(30, TimeUnit.SECONDS);
		long newSession = ZooKeeperSessions.sessionId(this.client);
		assertThat(newSession).isNotEqualTo(oldSession).isNotZero();
		// control: after the reconnect every old node is still among its lock's children, owned by the old session
		for (String node : oldNodes) {
			assertThat(this.observer.getChildren().forPath(ZKPaths.getPathAndNode(node).getPath()))
				.contains(ZKPaths.getNodeFromPath(node));
			assertThat(owner(node)).isEqualTo(oldSession);
		}
		await().atMost(WAIT)
			.until(() -> this.manager.getRegistry().snapshot().stream().allMatch((e) -> e.state() == LockState.LOST));
		assertThat(held.isHeld()).isFalse();
		assertThat(this.reasons).hasSize(keys.size())
			.allMatch((r) -> r == LockLossReason.SESSION_LOST || r == LockLossReason.SESSION_CHANGED);
		// a new acquisition by the same client, while the old nodes are still there
		CompletableFuture<AsyncLockHandle> again = this.async.acquire(request(mode, keys));
		await().atMost(WAIT).until(() -> !nodesOf(newSession).isEmpty());
		if (mode != LockMode.READ) {
			// behind the old node: not granted while it is listed (a READ shares with the old READ)
			await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> !again.isDone());
		}
		assertThat(held.isHeld()).isFalse();
		long releasedAt = System.nanoTime();
		held.release().get(30, TimeUnit.SECONDS);
		for (String node : oldNodes) {
			assertThat(owner(node)).as("old node %s after the release", node).isZero();
		}
		AsyncLockHandle next = again.get(30, TimeUnit.SECONDS);
		long grantedAt = System.nanoTime();
		assertThat(next.isHeld()).isTrue();
		for (String key : keys) {
			assertThat(owner(next.nodePath(key))).as("owner of the new node of key %s", key).isEqualTo(newSession);
			assertThat(oldNodes).doesNotContain(next.nodePath(key));
		}
		assertThat(held.isHeld()).isFalse();
		next.release().get(30, TimeUnit.SECONDS);
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.observer, this.basePath)).isEmpty();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		logger.info("Expiry while holding, {} {}: old node(s) listed {} ms after the reconnect, until the lost "
				+ "handle's release; new grant {} ms after that release", mode, keys,
				millis(releasedAt - reconnectedAt), millis(grantedAt - releasedAt));
	}

	private List<String> nodesOf(long session) throws Exception {
		List<String> nodes = new ArrayList<>();
		for (String node : ZooKeeperTestSupport.ephemeralNodes(this.observer, this.basePath)) {
			if (owner(node) == session) {
				nodes.add(node);
			}
		}
		return nodes;
	}

	private long owner(String node) throws Exception {
		Stat stat = this.observer.checkExists().forPath(node);
		return (stat != null) ? stat.getEphemeralOwner() : 0;
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	private static LockRequest request(LockMode mode, List<String> keys) {
		LockRequest.Builder builder = LockRequest.named("orders")
			.keys(keys.toArray(new String[0]))
			.mode(mode)
			.timeout(WAIT);
		return (mode == LockMode.SEMAPHORE) ? builder.permits(1).build() : builder.build();
	}

}
