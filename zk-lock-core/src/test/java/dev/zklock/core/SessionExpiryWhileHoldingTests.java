package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.curator.utils.ZKPaths;
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
import dev.zklock.LockState;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ZooKeeperSessions;

import static dev.zklock.core.ProxiedLockClient.millis;
import static dev.zklock.core.ProxiedLockClient.request;
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

	private static final Duration WAIT = ProxiedLockClient.WAIT;

	private final List<LockLossReason> reasons = new CopyOnWriteArrayList<>();

	private ProxiedLockClient rig;

	@BeforeEach
	void start() throws Exception {
		this.rig = new ProxiedLockClient("holder", "/expiry-holding-" + UUID.randomUUID());
		this.rig.manager.addLockLossListener((lock, reason) -> this.reasons.add(reason));
	}

	@AfterEach
	void stop() throws Exception {
		this.rig.close();
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
		AsyncLockHandle held = this.rig.async.acquire(request(LockMode.MUTEX, List.of("42"))).get(30, TimeUnit.SECONDS);
		String oldNode = held.nodePath();
		long oldSession = ZooKeeperSessions.expireOnClient(this.rig.client, this.rig.proxy);
		long reconnectedAt = this.rig.reconnected.get(30, TimeUnit.SECONDS);
		long newSession = ZooKeeperSessions.sessionId(this.rig.client);
		assertThat(this.rig.owner(oldNode)).as("control: old node still listed").isEqualTo(oldSession);
		CompletableFuture<AsyncLockHandle> again = this.rig.async.acquire(request(LockMode.MUTEX, List.of("42")));
		AsyncLockHandle next = again.get(30, TimeUnit.SECONDS);
		long grantedAt = System.nanoTime();
		assertThat(this.rig.owner(oldNode)).as("old node when the new grant came").isZero();
		assertThat(this.rig.owner(next.nodePath())).isEqualTo(newSession);
		assertThat(held.isHeld()).isFalse();
		next.release().get(30, TimeUnit.SECONDS);
		held.release().get(30, TimeUnit.SECONDS);
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.rig.observer, this.rig.basePath)).isEmpty();
		logger.info("Expiry while holding, no release: the old node stayed listed and the new acquisition was granted "
				+ "{} ms after the reconnect", millis(grantedAt - reconnectedAt));
	}

	@Test
	void aReadTakenInsideAWriteLostWithItsSessionQueuesAsAnyReaderDoes() throws Exception {
		CuratorLockManager other = new CuratorLockManager(this.rig.observer, this.rig.basePath, WAIT);
		try (LockHandle write = this.rig.manager.acquire(request(LockMode.WRITE, List.of("42")))) {
			ZooKeeperSessions.expire(this.rig.client);
			await().atMost(WAIT).until(() -> !write.isHeld() && this.rig.client.getZookeeperClient().isConnected());
			try (LockHandle otherWrite = other.acquire(request(LockMode.WRITE, List.of("42")))) {
				// control: the old WRITE node is gone and another process holds WRITE now
				assertThat(otherWrite.isHeld()).isTrue();
				assertThat(this.rig.owner(write.nodePath())).isZero();
				// a READ that still sorted itself at the lost WRITE's node would hold at once, beside that writer
				LockRequest read = LockRequest.named("orders").keys("42").mode(LockMode.READ)
					.timeout(Duration.ofSeconds(1)).build();
				try (LockHandle nested = this.rig.manager.acquire(read)) {
					assertThat(nested.isAcquired()).as("READ beside another process's WRITE").isFalse();
				}
			}
		}
		finally {
			other.close();
		}
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.rig.observer, this.rig.basePath)).isEmpty();
	}

	private void expireWhileHolding(LockMode mode, List<String> keys) throws Exception {
		AsyncLockHandle held = this.rig.async.acquire(request(mode, keys)).get(30, TimeUnit.SECONDS);
		List<String> oldNodes = new ArrayList<>();
		for (String key : keys) {
			oldNodes.add(held.nodePath(key));
		}
		long oldSession = ZooKeeperSessions.expireOnClient(this.rig.client, this.rig.proxy);
		long reconnectedAt = this.rig.reconnected.get(30, TimeUnit.SECONDS);
		long newSession = ZooKeeperSessions.sessionId(this.rig.client);
		assertThat(newSession).isNotEqualTo(oldSession).isNotZero();
		// control: after the reconnect every old node is still among its lock's children, owned by the old session
		for (String node : oldNodes) {
			assertThat(this.rig.observer.getChildren().forPath(ZKPaths.getPathAndNode(node).getPath()))
				.contains(ZKPaths.getNodeFromPath(node));
			assertThat(this.rig.owner(node)).isEqualTo(oldSession);
		}
		await().atMost(WAIT)
			.until(() -> this.rig.manager.getRegistry().snapshot().stream().allMatch((e) -> e.state() == LockState.LOST));
		assertThat(held.isHeld()).isFalse();
		assertThat(this.reasons).hasSize(keys.size())
			.allMatch((r) -> r == LockLossReason.SESSION_LOST || r == LockLossReason.SESSION_CHANGED);
		// a new acquisition by the same client, while the old nodes are still there
		CompletableFuture<AsyncLockHandle> again = this.rig.async.acquire(request(mode, keys));
		await().atMost(WAIT).until(() -> !nodesOf(newSession).isEmpty());
		if (mode != LockMode.READ) {
			// behind the old node: not granted while it is listed (a READ shares with the old READ)
			await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> !again.isDone());
		}
		assertThat(held.isHeld()).isFalse();
		long releasedAt = System.nanoTime();
		held.release().get(30, TimeUnit.SECONDS);
		for (String node : oldNodes) {
			assertThat(this.rig.owner(node)).as("old node %s after the release", node).isZero();
		}
		AsyncLockHandle next = again.get(30, TimeUnit.SECONDS);
		long grantedAt = System.nanoTime();
		assertThat(next.isHeld()).isTrue();
		for (String key : keys) {
			assertThat(this.rig.owner(next.nodePath(key))).as("owner of the new node of key %s", key).isEqualTo(newSession);
			assertThat(oldNodes).doesNotContain(next.nodePath(key));
		}
		assertThat(held.isHeld()).isFalse();
		next.release().get(30, TimeUnit.SECONDS);
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.rig.observer, this.rig.basePath)).isEmpty();
		assertThat(this.rig.manager.getRegistry().snapshot()).isEmpty();
		logger.info("Expiry while holding, {} {}: old node(s) listed {} ms after the reconnect, until the lost "
				+ "handle's release; new grant {} ms after that release", mode, keys,
				millis(releasedAt - reconnectedAt), millis(grantedAt - releasedAt));
	}

	private List<String> nodesOf(long session) throws Exception {
		List<String> nodes = new ArrayList<>();
		for (String node : ZooKeeperTestSupport.ephemeralNodes(this.rig.observer, this.rig.basePath)) {
			if (this.rig.owner(node) == session) {
				nodes.add(node);
			}
		}
		return nodes;
	}

}
