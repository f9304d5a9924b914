package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.LockLossReason;
import dev.zklock.LockLostException;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Any take-away in mid-tenure ends the tenure: every local holder sees the loss
 * with its reason, and the local waiters join again and are granted with a larger
 * token. Each case runs on a client of its own, whose session a test may expire.
 */
class LocalHandoffLossTests extends AbstractZooKeeperTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private CuratorFramework own;

	private CuratorLockManager holders;

	private final List<String> losses = new CopyOnWriteArrayList<>();

	@BeforeEach
	void startOwnClient() throws Exception {
		this.own = ZooKeeperTestSupport.startClient(server.getConnectString());
		this.holders = new CuratorLockManager(this.own, this.basePath, WAIT);
		this.holders.addLockLossListener((info, reason) -> this.losses.add(info.threadName() + ":" + reason));
	}

	@AfterEach
	void closeOwnClient() {
		this.holders.close();
		this.own.close();
	}

	enum TakeAway {

		REVOKE(LockLossReason.REVOKED), MAX_HOLD(LockLossReason.MAX_HOLD_EXCEEDED),
		SESSION_EXPIRY(LockLossReason.SESSION_LOST);

		final LockLossReason reason;

		TakeAway(LockLossReason reason) {
			this.reason = reason;
		}

	}

	@ParameterizedTest
	@EnumSource(TakeAway.class)
	void everyLocalReaderLosesTheTenureAndALocalWriterIsGrantedAfter(TakeAway takeAway) throws Exception {
		LockRequest.Builder read = LocalHandoffTests.hot(LockMode.READ);
		if (takeAway == TakeAway.MAX_HOLD) {
			read.maxHold(Duration.ofMillis(500));
		}
		AsyncLockManager async = this.holders.async(null);
		try {
			AsyncLockHandle first = async.acquire(read.build()).get(30, TimeUnit.SECONDS);
			AsyncLockHandle second = async.acquire(LocalHandoffLossTests.hotRead()).get(30, TimeUnit.SECONDS);
			long token = first.fencingToken();
			assertThat(second.fencingToken()).isEqualTo(token);
			CompletableFuture<AsyncLockHandle> writer = async.acquire(LocalHandoffTests.hot(LockMode.WRITE).build());
			await().atMost(WAIT).until(() -> this.holders.getRegistry().waitingCount() == 1);
			// the readers' tenure, and the writer's of its own, queued behind it
			await().atMost(WAIT).until(() -> queueNodes().size() == 2);
			takeAway(takeAway);
			await().atMost(WAIT).until(() -> !first.isHeld() && !second.isHeld());
			for (AsyncLockHandle reader : List.of(first, second)) {
				assertThatExceptionOfType(LockLostException.class).isThrownBy(reader::assertHeld);
			}
			await().atMost(WAIT).until(() -> this.losses.size() == 2);
			assertThat(this.losses).containsOnly("async:" + takeAway.reason);
			AsyncLockHandle granted = writer.get(30, TimeUnit.SECONDS);
			assertThat(granted.isHeld()).isTrue();
			assertThat(granted.fencingToken()).isGreaterThan(token);
			first.release().handle((ignored, ex) -> null).get(30, TimeUnit.SECONDS);
			second.release().handle((ignored, ex) -> null).get(30, TimeUnit.SECONDS);
			granted.release().get(30, TimeUnit.SECONDS);
		}
		finally {
			async.close();
		}
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
		await().atMost(WAIT).until(() -> this.holders.getRegistry().snapshot().isEmpty());
	}

	@ParameterizedTest
	@EnumSource(TakeAway.class)
	void theMutexHolderLosesItAndTheLocalWaiterJoinsAgain(TakeAway takeAway) throws Exception {
		LockRequest.Builder mutex = LocalHandoffTests.hot(LockMode.MUTEX);
		if (takeAway == TakeAway.MAX_HOLD) {
			mutex.maxHold(Duration.ofMillis(500));
		}
		AsyncLockManager async = this.holders.async(null);
		try {
			AsyncLockHandle holder = async.acquire(mutex.build()).get(30, TimeUnit.SECONDS);
			long token = holder.fencingToken();
			CompletableFuture<AsyncLockHandle> waiter = async.acquire(LocalHandoffTests.hot(LockMode.MUTEX).build());
			await().atMost(WAIT).until(() -> this.holders.getRegistry().waitingCount() == 1);
			takeAway(takeAway);
			await().atMost(WAIT).until(() -> !holder.isHeld());
			await().atMost(WAIT).until(() -> this.losses.size() == 1);
			assertThat(this.losses).containsExactly("async:" + takeAway.reason);
			AsyncLockHandle next = waiter.get(30, TimeUnit.SECONDS);
			assertThat(next.fencingToken()).isGreaterThan(token);
			holder.release().handle((ignored, ex) -> null).get(30, TimeUnit.SECONDS);
			next.release().get(30, TimeUnit.SECONDS);
		}
		finally {
			async.close();
		}
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
	}

	@Test
	void aShutdownEndsTheLocalWaitAndGivesUpTheTenureWithItsNode() throws Exception {
		AsyncLockManager async = this.holders.async(null);
		try {
			AsyncLockHandle holder = async.acquire(LocalHandoffTests.hot(LockMode.MUTEX).build())
				.get(30, TimeUnit.SECONDS);
			CompletableFuture<AsyncLockHandle> waiter = async.acquire(LocalHandoffTests.hot(LockMode.MUTEX).build());
			await().atMost(WAIT).until(() -> this.holders.getRegistry().waitingCount() == 1);
			this.holders.beginShutdown();
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> waiter.get(30, TimeUnit.SECONDS))
				.withMessageContaining("shutting down");
			assertThat(this.holders.drain(Duration.ofMillis(200))).isEqualTo(1);
			assertThat(holder.isHeld()).isFalse();
			await().atMost(WAIT).until(() -> this.losses.size() == 1);
			assertThat(this.losses).containsExactly("async:" + LockLossReason.SHUTDOWN);
			await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
			assertThat(this.holders.getLocalHandoffs().tenures()).isEmpty();
		}
		finally {
			async.close();
		}
	}

	private static LockRequest hotRead() {
		return LocalHandoffTests.hot(LockMode.READ).build();
	}

	private void takeAway(TakeAway takeAway) throws Exception {
		switch (takeAway) {
			case REVOKE -> assertThat(this.manager.revoke("hot", "k", null, "test").revoked()).hasSize(1);
			case MAX_HOLD -> {
				// the cap runs out by itself
			}
			case SESSION_EXPIRY -> ZooKeeperSessions.expire(this.own);
		}
	}

}
