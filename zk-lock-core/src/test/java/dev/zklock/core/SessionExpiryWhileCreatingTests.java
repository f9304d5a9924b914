package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
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

import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ZooKeeperProxy;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The session ends while a lock node is being created: the server has executed
 * the create, its response never reached the client, and the client then takes
 * its session for expired (as Curator does once a session timeout passed while
 * suspended) while the server still keeps it. After the reconnect the create is
 * retried in protected mode, which finds the node again by its protected name; the
 * acquisition must end with a node of the new session, never with the old one,
 * and leave no node behind. In every mode and for several keys.
 * <p>
 * Control: once the client has given its old session up, the node it created is
 * still listed under its protected name, owned by the old session: a check of the
 * name alone (protected mode before Curator checked the session, or "is my node
 * among the children") would have taken it for ours.
 */
class SessionExpiryWhileCreatingTests {

	private static final Logger logger = LoggerFactory.getLogger(SessionExpiryWhileCreatingTests.class);

	private static final Duration WAIT = Duration.ofSeconds(30);

	// the client's session timeout: the old session outlives every check below
	private static final Duration SESSION = Duration.ofSeconds(15);

	private TestingServer server;

	private ZooKeeperProxy proxy;

	private CuratorFramework client;

	private CuratorFramework observer;

	private CuratorLockManager manager;

	private AsyncLockManager async;

	private String basePath;

	private final CompletableFuture<Long> lost = new CompletableFuture<>();

	private final CompletableFuture<Long> reconnected = new CompletableFuture<>();

	@BeforeEach
	void start() throws Exception {
		this.server = new TestingServer(true);
		this.proxy = ZooKeeperProxy.start("creator", List.of(this.server.getPort()));
		this.basePath = "/expiry-creating-" + UUID.randomUUID();
		this.client = ZooKeeperTestSupport.startClient(this.proxy.connectString());
		this.observer = ZooKeeperTestSupport.startClient(this.server.getConnectString());
		this.client.getConnectionStateListenable().addListener((c, state) -> {
			if (state == ConnectionState.LOST) {
				this.lost.complete(System.nanoTime());
			}
			else if (state == ConnectionState.RECONNECTED && this.lost.isDone()) {
				this.reconnected.complete(System.nanoTime());
			}
		});
		this.manager = new CuratorLockManager(this.client, this.basePath, WAIT);
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
	void aCreateAnsweredOnlyAfterTheSessionEndedHoldsANodeOfTheNewSession(LockMode mode) throws Exception {
		String lockPath = this.manager.pathFor("orders", "42");
		prepare(lockPath);
		expireWhileCreating(mode, lockPath + "/", List.of("42"));
	}

	@Test
	void aMultiKeyAcquisitionWhoseSecondCreateIsAnsweredAfterTheSessionEndedTakesEveryKeyAgain()
			throws Exception {
		// "a" is held by the old session, "b" is being created when it ends
		prepare(this.manager.pathFor("orders", "a"));
		prepare(this.manager.pathFor("orders", "b"));
		expireWhileCreating(LockMode.MUTEX, this.manager.pathFor("orders", "b") + "/", List.of("a", "b"));
	}

	private void expireWhileCreating(LockMode mode, String created, List<String> keys) throws Exception {
		long oldSession = ZooKeeperSessions.sessionId(this.client);
		CompletableFuture<Long> trapped = this.proxy.blackholeAfterNextCreate(created);
		long started = System.nanoTime();
		CompletableFuture<AsyncLockHandle> acquisition = this.async.acquire(request(mode, keys));
		trapped.get(30, TimeUnit.SECONDS);
		// the server created the node; the client has not seen the answer
		await().atMost(WAIT).until(() -> !nodesOf(oldSession, created).isEmpty());
		List<String> oldNodes = nodesOf(oldSession, "");
		ZooKeeperSessions.expireOnClient(this.client);
		this.lost.get(30, TimeUnit.SECONDS);
		// control: given up by the client, the old node is still listed under the attempt's protected name
		List<String> inFlight = nodesOf(oldSession, created);
		assertThat(inFlight).as("old-session node of the create in flight").singleElement().satisfies((node) -> {
			assertThat(ZKPaths.getNodeFromPath(node)).startsWith("_c_");
			assertThat(this.observer.getChildren().forPath(ZKPaths.getPathAndNode(node).getPath()))
				.contains(ZKPaths.getNodeFromPath(node));
			assertThat(owner(node)).isEqualTo(oldSession);
		});
		// drop what the old connection still carries (the create's answer, a close of the session), then let through
		this.proxy.reset();
		this.proxy.pass();
		long reconnectedAt = this.reconnected.get(30, TimeUnit.SECONDS);
		long newSession = ZooKeeperSessions.sessionId(this.client);
		assertThat(newSession).isNotEqualTo(oldSession).isNotZero();
		boolean listedAtReconnect = this.observer.checkExists().forPath(inFlight.get(0)) != null;
		AsyncLockHandle handle = acquisition.get(30, TimeUnit.SECONDS);
		long grantedAt = System.nanoTime();
		assertThat(handle.isHeld()).isTrue();
		for (String key : keys) {
			String node = handle.nodePath(key);
			assertThat(owner(node)).as("owner of the held node of key %s", key).isEqualTo(newSession);
			assertThat(oldNodes).doesNotContain(node);
		}
		// the old nodes are deleted by the client, long before the server would end their session
		await().atMost(Duration.ofSeconds(5)).until(() -> nodesOf(oldSession, "").isEmpty());
		long oldGoneAt = System.nanoTime();
		assertThat(Duration.ofNanos(oldGoneAt - trapped.get())).isLessThan(SESSION.dividedBy(2));
		handle.release().get(30, TimeUnit.SECONDS);
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.observer, this.basePath)).isEmpty();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		logger.info("Expiry while creating, {} {}: old node {} at the reconnect; granted {} ms after the reconnect "
				+ "({} ms after the acquisition began, {} old node(s) gone {} ms after the reconnect)", mode, keys,
				listedAtReconnect ? "still listed" : "already gone", millis(grantedAt - reconnectedAt),
				millis(grantedAt - started), oldNodes.size(), millis(oldGoneAt - reconnectedAt));
	}

	// Lock paths made up front, so that the create in flight does not first meet a missing parent
	private void prepare(String lockPath) throws Exception {
		this.observer.create().creatingParentsIfNeeded().forPath(lockPath);
	}

	private List<String> nodesOf(long session, String under) throws Exception {
		List<String> nodes = new ArrayList<>();
		for (String node : ZooKeeperTestSupport.ephemeralNodes(this.observer, this.basePath)) {
			Stat stat = this.observer.checkExists().forPath(node);
			if (stat != null && stat.getEphemeralOwner() == session && node.startsWith(under)) {
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
