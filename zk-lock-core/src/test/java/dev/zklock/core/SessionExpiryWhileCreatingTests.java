package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ZooKeeperSessions;

import static dev.zklock.core.ProxiedLockClient.millis;
import static dev.zklock.core.ProxiedLockClient.request;
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

	private static final Duration WAIT = ProxiedLockClient.WAIT;

	// the client's session timeout: the old session outlives every check below
	private static final Duration SESSION = Duration.ofSeconds(15);

	private ProxiedLockClient rig;

	@BeforeEach
	void start() throws Exception {
		this.rig = new ProxiedLockClient("creator", "/expiry-creating-" + UUID.randomUUID());
	}

	@AfterEach
	void stop() throws Exception {
		this.rig.close();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void aCreateAnsweredOnlyAfterTheSessionEndedHoldsANodeOfTheNewSession(LockMode mode) throws Exception {
		String lockPath = this.rig.manager.pathFor("orders", "42");
		prepare(lockPath);
		expireWhileCreating(mode, lockPath + "/", List.of("42"));
	}

	@Test
	void aMultiKeyAcquisitionWhoseSecondCreateIsAnsweredAfterTheSessionEndedTakesEveryKeyAgain()
			throws Exception {
		// "a" is held by the old session, "b" is being created when it ends
		prepare(this.rig.manager.pathFor("orders", "a"));
		prepare(this.rig.manager.pathFor("orders", "b"));
		expireWhileCreating(LockMode.MUTEX, this.rig.manager.pathFor("orders", "b") + "/", List.of("a", "b"));
	}

	private void expireWhileCreating(LockMode mode, String created, List<String> keys) throws Exception {
		long oldSession = ZooKeeperSessions.sessionId(this.rig.client);
		CompletableFuture<Long> trapped = this.rig.proxy.blackholeAfterNextCreate(created);
		long started = System.nanoTime();
		CompletableFuture<AsyncLockHandle> acquisition = this.rig.async.acquire(request(mode, keys));
		trapped.get(30, TimeUnit.SECONDS);
		// the server created the node; the client has not seen the answer
		await().atMost(WAIT).until(() -> !nodesOf(oldSession, created).isEmpty());
		List<String> oldNodes = nodesOf(oldSession, "");
		ZooKeeperSessions.expireOnClient(this.rig.client);
		this.rig.lost.get(30, TimeUnit.SECONDS);
		// control: given up by the client, the old node is still listed under the attempt's protected name
		List<String> inFlight = nodesOf(oldSession, created);
		assertThat(inFlight).as("old-session node of the create in flight").singleElement().satisfies((node) -> {
			assertThat(ZKPaths.getNodeFromPath(node)).startsWith("_c_");
			assertThat(this.rig.observer.getChildren().forPath(ZKPaths.getPathAndNode(node).getPath()))
				.contains(ZKPaths.getNodeFromPath(node));
			assertThat(this.rig.owner(node)).isEqualTo(oldSession);
		});
		// drop what the old connection still carries (the create's answer, a close of the session), then let through
		this.rig.proxy.reset();
		this.rig.proxy.pass();
		long reconnectedAt = this.rig.reconnected.get(30, TimeUnit.SECONDS);
		long newSession = ZooKeeperSessions.sessionId(this.rig.client);
		assertThat(newSession).isNotEqualTo(oldSession).isNotZero();
		boolean listedAtReconnect = this.rig.observer.checkExists().forPath(inFlight.get(0)) != null;
		AsyncLockHandle handle = acquisition.get(30, TimeUnit.SECONDS);
		long grantedAt = System.nanoTime();
		assertThat(handle.isHeld()).isTrue();
		for (String key : keys) {
			String node = handle.nodePath(key);
			assertThat(this.rig.owner(node)).as("owner of the held node of key %s", key).isEqualTo(newSession);
			assertThat(oldNodes).doesNotContain(node);
		}
		// the old nodes are deleted by the client, long before the server would end their session
		await().atMost(Duration.ofSeconds(5)).until(() -> nodesOf(oldSession, "").isEmpty());
		long oldGoneAt = System.nanoTime();
		assertThat(Duration.ofNanos(oldGoneAt - trapped.get())).isLessThan(SESSION.dividedBy(2));
		handle.release().get(30, TimeUnit.SECONDS);
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.rig.observer, this.rig.basePath)).isEmpty();
		assertThat(this.rig.manager.getRegistry().snapshot()).isEmpty();
		logger.info("Expiry while creating, {} {}: old node {} at the reconnect; granted {} ms after the reconnect "
				+ "({} ms after the acquisition began, {} old node(s) gone {} ms after the reconnect)", mode, keys,
				listedAtReconnect ? "still listed" : "already gone", millis(grantedAt - reconnectedAt),
				millis(grantedAt - started), oldNodes.size(), millis(oldGoneAt - reconnectedAt));
	}

	// Lock paths made up front, so that the create in flight does not first meet a missing parent
	private void prepare(String lockPath) throws Exception {
		this.rig.observer.create().creatingParentsIfNeeded().forPath(lockPath);
	}

	private List<String> nodesOf(long session, String under) throws Exception {
		List<String> nodes = new ArrayList<>();
		for (String node : ZooKeeperTestSupport.ephemeralNodes(this.rig.observer, this.rig.basePath)) {
			Stat stat = this.rig.observer.checkExists().forPath(node);
			if (stat != null && stat.getEphemeralOwner() == session && node.startsWith(under)) {
				nodes.add(node);
			}
		}
		return nodes;
	}

}
