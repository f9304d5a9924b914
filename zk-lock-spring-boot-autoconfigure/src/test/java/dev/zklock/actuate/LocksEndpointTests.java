package dev.zklock.actuate;

import java.time.Duration;
import java.util.UUID;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.actuate.LocksEndpoint.LockDescriptor;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.testsupport.StoppableZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The local view of {@code /actuator/locks} through a connection outage: fencing
 * tokens of held locks, and the in-doubt state while the connection is suspended.
 */
class LocksEndpointTests {

	private StoppableZooKeeper server;

	private CuratorFramework client;

	private CuratorLockManager manager;

	private LocksEndpoint endpoint;

	@BeforeEach
	void start() {
		this.server = StoppableZooKeeper.start();
		this.client = this.server.newClient(4_000);
		this.manager = new CuratorLockManager(this.client, "/endpoint-" + UUID.randomUUID(), Duration.ofSeconds(5));
		this.endpoint = new LocksEndpoint(() -> this.manager, new LockQueueReader(this.client));
	}

	@AfterEach
	void stop() {
		this.client.close();
		this.server.close();
	}

	@Test
	void heldLocksShowTheirTokenAndTurnInDoubtWhileSuspended() {
		try (LockHandle handle = this.manager.acquire(LockRequest.named("orders").keys("7").build())) {
			LockDescriptor held = single();
			assertThat(held.state()).isEqualTo("HELD");
			assertThat(held.fencingToken()).isEqualTo(handle.fencingToken());
			this.server.stop();
			await().atMost(Duration.ofSeconds(10)).until(() -> single().state().equals("IN_DOUBT"));
			assertThat(this.endpoint.locks().held()).isZero();
			this.server.restart();
			await().atMost(Duration.ofSeconds(20)).until(() -> single().state().equals("HELD"));
			assertThat(single().fencingToken()).isEqualTo(handle.fencingToken());
		}
		assertThat(this.endpoint.locks().locks()).isEmpty();
	}

	private LockDescriptor single() {
		assertThat(this.endpoint.locks().locks()).hasSize(1);
		return this.endpoint.locks().locks().get(0);
	}

}
