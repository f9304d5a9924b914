package dev.zklock.core;

import java.time.Duration;
import java.util.EnumSet;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockState;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * What the {@link ConnectionLossHandler} could not check is checked again while
 * connected: a check that fails after a reconnection stops no other check, and a
 * release that could not be confirmed is tried again, without waiting for another
 * connection event that may never come. The checks fail through a
 * {@link FaultyZooKeeper}, which fails a request while the connection stays up.
 */
class ConnectionHazardTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	// well above the handler's longest retry delay, well below a test's patience
	private static final Duration RETRIED = Duration.ofSeconds(10);

	private FaultyZooKeeper faults;

	private CuratorLockManager manager;

	@BeforeEach
	void start() throws Exception {
		this.faults = new FaultyZooKeeper();
		this.manager = new CuratorLockManager(this.faults.client(), "/hazard-" + UUID.randomUUID(), WAIT);
	}

	@AfterEach
	void stop() throws Exception {
		this.manager.close();
		this.faults.close();
	}

	@Test
	void aCheckThatFailsAfterAReconnectionStopsNoOtherAndIsTriedAgain() throws Exception {
		try (LockHandle first = this.manager.acquire(request("a")); LockHandle second = this.manager.acquire(request("b"))) {
			String failing = entry("a").node().path();
			this.faults.server().stop();
			await().atMost(WAIT).until(() -> this.manager.getRegistry().count(LockState.IN_DOUBT) == 2);
			this.faults.fail(FaultyZooKeeper.Op.EXISTS, failing, -1);
			this.faults.server().restart();
			await("the other hold, checked although the first check failed").atMost(RETRIED)
				.until(second::isHeld);
			assertThat(first.isHeld()).isFalse();
			assertThat(this.faults.failed(FaultyZooKeeper.Op.EXISTS)).isPositive();
			this.faults.clear(FaultyZooKeeper.Op.EXISTS, failing);
			await("the failed check, tried again while connected").atMost(RETRIED).until(first::isHeld);
			assertThat(this.manager.getRegistry().heldCount()).isEqualTo(2);
		}
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
	}

	@Test
	void aReleaseThatCannotBeConfirmedIsTriedAgainWhileConnected() throws Exception {
		LockHandle handle = this.manager.acquire(request("a"));
		String node = entry("a").node().path();
		// the release, and then its confirmation, fail
		this.faults.fail(FaultyZooKeeper.Op.DELETE, node, -1);
		assertThat(catchThrowable(handle::close)).hasMessageContaining("Could not release");
		await().atMost(WAIT).until(() -> this.faults.failed(FaultyZooKeeper.Op.DELETE) >= 2);
		assertThat(this.manager.getRegistry().count(LockState.RELEASING)).isOne();
		this.faults.clear(FaultyZooKeeper.Op.DELETE, node);
		await("the release, confirmed without another reconnection").atMost(RETRIED)
			.until(() -> this.manager.getRegistry().snapshot().isEmpty());
		assertThat(this.faults.client().checkExists().forPath(node)).isNull();
	}

	private LockRegistry.Entry entry(String key) {
		return this.manager.getRegistry()
			.entries(EnumSet.allOf(LockState.class))
			.stream()
			.filter((entry) -> key.equals(entry.key()))
			.findFirst()
			.orElseThrow();
	}

	private static LockRequest request(String key) {
		return LockRequest.named("orders").keys(key).mode(LockMode.MUTEX).timeout(WAIT).build();
	}

}
