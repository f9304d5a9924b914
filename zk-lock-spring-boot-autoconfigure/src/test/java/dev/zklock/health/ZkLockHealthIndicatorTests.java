package dev.zklock.health;

import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.testsupport.FreePorts;
import dev.zklock.testsupport.StoppableZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The health indicator against a real ZooKeeper server that is stopped and
 * restarted.
 */
class ZkLockHealthIndicatorTests {

	private static final Logger logger = LoggerFactory.getLogger(ZkLockHealthIndicatorTests.class);

	private static final int SESSION_TIMEOUT_MILLIS = 2_000;

	private StoppableZooKeeper server;

	private CuratorFramework client;

	private CuratorLockManager manager;

	private ZkLockHealthIndicator indicator;

	@BeforeEach
	void start() {
		this.server = StoppableZooKeeper.start();
		this.client = this.server.newClient(SESSION_TIMEOUT_MILLIS);
		this.manager = new CuratorLockManager(this.client, "/health-" + UUID.randomUUID(), Duration.ofSeconds(5));
		this.indicator = new ZkLockHealthIndicator(this.client, this.manager::getRegistry);
	}

	@AfterEach
	void stop() {
		this.indicator.close();
		this.client.close();
		this.server.close();
	}

	@Test
	void upWhenConnectedWithDetails() throws Exception {
		long sessionId = this.client.getZookeeperClient().getZooKeeper().getSessionId();
		try (LockHandle handle = this.manager.acquire(LockRequest.named("orders").keys("1").build())) {
			assertThat(handle.isAcquired()).isTrue();
			Health health = this.indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("connectString", this.server.connectString())
				.containsEntry("connectionState", "CONNECTED")
				.containsEntry("sessionId", "0x" + Long.toHexString(sessionId))
				.containsEntry("sessionTimeoutMillis", SESSION_TIMEOUT_MILLIS)
				.containsEntry("locksHeld", 1)
				.containsEntry("locksInDoubt", 0)
				.containsEntry("locksWaiting", 0);
		}
		assertThat(this.indicator.health().getDetails()).containsEntry("locksHeld", 0);
	}

	@Test
	void outOfServiceWhileSuspendedThenDownWhenLostThenUpAfterRestart() throws Exception {
		assertThat(this.indicator.health().getStatus()).isEqualTo(Status.UP);
		LockHandle handle = this.manager.acquire(LockRequest.named("orders").keys("1").build());
		assertThat(handle.isAcquired()).isTrue();
		this.server.stop();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			Health health = this.indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
			assertThat(health.getDetails()).containsEntry("connectionState", "SUSPENDED")
				.containsEntry("locksHeld", 0)
				.containsEntry("locksInDoubt", 1);
		});
		await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
			Health health = this.indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("connectionState", "LOST");
		});
		this.server.restart();
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			Health health = this.indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("connectionState", "RECONNECTED")
				.containsKey("sessionId");
		});
		try {
			handle.close();
		}
		catch (LockException ex) {
			// The lock was lost with the session; closing only drops it locally
		}
		assertThat(this.indicator.health().getDetails()).containsEntry("locksHeld", 0).containsEntry("locksInDoubt", 0);
	}

	@Test
	void answersQuicklyWhileZooKeeperIsDown() {
		assertThat(this.indicator.health().getStatus()).isEqualTo(Status.UP);
		this.server.stop();
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.client.getZookeeperClient().isConnected());
		long[] nanos = new long[100];
		for (int i = 0; i < nanos.length; i++) {
			long start = System.nanoTime();
			assertThat(this.indicator.health().getStatus()).isNotEqualTo(Status.UP);
			nanos[i] = System.nanoTime() - start;
		}
		Arrays.sort(nanos);
		logger.info("Health while ZooKeeper is down, 100 checks: median {} µs, slowest {} µs", nanos[50] / 1_000,
				nanos[99] / 1_000);
		assertThat(Duration.ofNanos(nanos[50])).isLessThan(Duration.ofMillis(5));
		// A call that waited for ZooKeeper would take at least the 1s connection timeout
		assertThat(Duration.ofNanos(nanos[99])).isLessThan(Duration.ofMillis(500));
	}

	@Test
	void downBeforeTheFirstConnection() {
		CuratorFramework unconnected = CuratorFrameworkFactory.builder()
			.connectString("127.0.0.1:" + FreePorts.next())
			.retryPolicy(new RetryNTimes(0, 10))
			.build();
		unconnected.start();
		try (ZkLockHealthIndicator unconnectedIndicator = new ZkLockHealthIndicator(unconnected, () -> null)) {
			Health health = unconnectedIndicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("connectionState", "NOT_CONNECTED")
				.doesNotContainKeys("sessionId", "locksHeld");
		}
		finally {
			unconnected.close();
		}
	}

	@Test
	void downOnceTheClientIsClosed() {
		this.client.close();
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("connectionState", "CLOSED");
	}

}
