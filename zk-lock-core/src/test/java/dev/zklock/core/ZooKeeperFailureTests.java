package dev.zklock.core;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockInfo;
import dev.zklock.LockRequest;
import dev.zklock.LockState;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What happens when ZooKeeper goes away: errors name the lock, local state never
 * claims a lock that was not released, and no node is left behind.
 */
class ZooKeeperFailureTests {

	private TestingServer server;

	private CuratorFramework client;

	private CuratorLockManager manager;

	private String basePath;

	@BeforeEach
	void start() throws Exception {
		this.server = new TestingServer(true);
		this.client = CuratorFrameworkFactory.builder()
			.connectString(this.server.getConnectString())
			.retryPolicy(new RetryNTimes(2, 100))
			.sessionTimeoutMs(20_000)
			.connectionTimeoutMs(1_000)
			.build();
		this.client.start();
		assertThat(this.client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
		this.basePath = "/failure-" + UUID.randomUUID();
		this.manager = new CuratorLockManager(this.client, this.basePath, Duration.ofSeconds(5));
	}

	@AfterEach
	void stop() throws Exception {
		this.manager.close();
		this.client.close();
		this.server.close();
	}

	@Test
	void failedReleaseShowsReleasingUntilTheNodeIsDeleted() throws Exception {
		LockRequest request = LockRequest.named("payments").keys("p-1").timeout(Duration.ZERO).build();
		LockHandle handle = this.manager.acquire(request);
		assertThat(handle.isAcquired()).isTrue();
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath)).hasSize(1);
		this.server.stop();
		assertThatExceptionOfType(LockException.class).isThrownBy(handle::close)
			.withMessageContaining("'payments'")
			.withMessageContaining("'p-1'")
			.withMessageContaining(this.manager.pathFor("payments", "p-1"));
		assertThat(handle.isAcquired()).isFalse();
		assertThat(this.manager.getRegistry().snapshot()).extracting(LockInfo::state)
			.containsExactly(LockState.RELEASING);
		assertThat(this.manager.getRegistry().heldCount()).isZero();
		handle.close();
		this.server.restart();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath).isEmpty());
		await().atMost(Duration.ofSeconds(30)).until(() -> this.manager.getRegistry().snapshot().isEmpty());
		assertThat(this.manager.getRegistry().count(LockState.RELEASING)).isZero();
		try (LockHandle again = this.manager.acquire(request)) {
			assertThat(again.isAcquired()).isTrue();
			// a real new node, not a re-entry into stale bookkeeping
			assertThat(ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath)).hasSize(1);
		}
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath)).isEmpty();
	}

	@Test
	void acquireFailsWithLockExceptionWhenZooKeeperIsDown() throws Exception {
		this.server.stop();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockException.class)
			.isThrownBy(() -> this.manager.acquire(LockRequest.named("payments").keys("p-2").build()))
			.withMessageContaining("'payments'")
			.withMessageContaining("'p-2'")
			.withMessageContaining("zk-lock.connect-string");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		this.server.restart();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath).isEmpty());
		try (LockHandle handle = this.manager.acquire(LockRequest.named("payments").keys("p-2").build())) {
			assertThat(handle.isAcquired()).isTrue();
		}
	}

}
