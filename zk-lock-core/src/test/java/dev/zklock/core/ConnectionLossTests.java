package dev.zklock.core;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateErrorPolicy;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.framework.state.StandardConnectionStateErrorPolicy;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.zklock.LockContext;
import dev.zklock.LockHandle;
import dev.zklock.LockInfo;
import dev.zklock.LockLossReason;
import dev.zklock.LockLostException;
import dev.zklock.LockRequest;
import dev.zklock.LockState;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.awaitility.Awaitility.await;

/**
 * Held locks follow the connection: in doubt while it is suspended, held again
 * after reconnecting with the same session, lost for good once the session ends.
 * Each test has its own server, stopped and restarted to suspend the connection.
 */
class ConnectionLossTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final List<LockInfo> losses = new CopyOnWriteArrayList<>();

	private final List<LockLossReason> reasons = new CopyOnWriteArrayList<>();

	private TestingServer server;

	private CuratorFramework client;

	private CuratorLockManager manager;

	private String basePath;

	@BeforeEach
	void startServer() throws Exception {
		this.server = new TestingServer(true);
		this.basePath = "/loss-" + UUID.randomUUID();
	}

	@AfterEach
	void stop() throws Exception {
		if (this.manager != null) {
			this.manager.close();
		}
		if (this.client != null) {
			this.client.close();
		}
		this.server.close();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void suspendedLockIsInDoubtThenHeldAgainWithTheSameSession(LockMode mode) throws Exception {
		start(new StandardConnectionStateErrorPolicy());
		long session = ZooKeeperSessions.sessionId(this.client);
		try (LockHandle handle = this.manager.acquire(request(mode))) {
			long token = handle.fencingToken();
			assertThat(handle.isHeld()).isTrue();
			this.server.stop();
			await().atMost(WAIT).until(() -> state() == LockState.IN_DOUBT);
			assertThat(handle.isHeld()).isFalse();
			assertThat(LockContext.current()).isSameAs(handle);
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::assertHeld)
				.withMessageContaining("'orders'")
				.withMessageContaining("'42'")
				.withMessageContaining("in doubt")
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("42"));
			assertThat(this.manager.getRegistry().count(LockState.IN_DOUBT)).isOne();
			assertThat(this.manager.getRegistry().heldCount()).isZero();
			this.server.restart();
			await().atMost(WAIT).until(handle::isHeld);
			assertThat(ZooKeeperSessions.sessionId(this.client)).isEqualTo(session);
			assertThat(state()).isEqualTo(LockState.HELD);
			assertThat(this.manager.getRegistry().heldCount()).isOne();
			assertThat(handle.fencingToken()).isEqualTo(token);
			assertThatNoException().isThrownBy(handle::assertHeld);
		}
		assertThat(this.losses).isEmpty();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void expiredSessionLosesTheLockForGood(LockMode mode) throws Exception {
		start(new StandardConnectionStateErrorPolicy());
		LockHandle handle = this.manager.acquire(request(mode));
		long token = handle.fencingToken();
		long expired = ZooKeeperSessions.expire(this.client);
		await().atMost(WAIT).until(() -> state() == LockState.LOST);
		await().atMost(WAIT).until(() -> this.client.getZookeeperClient().isConnected()
				&& ZooKeeperSessions.sessionId(this.client) != expired);
		// reconnected with a new session: the lock never comes back
		await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> state() == LockState.LOST);
		assertThat(handle.isHeld()).isFalse();
		assertThat(handle.isAcquired()).isTrue();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::assertHeld)
			.withMessageContaining("'orders'")
			.withMessageContaining("'42'")
			.withMessageContaining("was lost (SESSION_LOST)");
		assertThat(this.losses).singleElement().satisfies((lost) -> {
			assertThat(lost.name()).isEqualTo("orders");
			assertThat(lost.key()).isEqualTo("42");
			assertThat(lost.path()).isEqualTo(this.manager.pathFor("orders", "42"));
			assertThat(lost.mode()).isEqualTo(mode);
			assertThat(lost.fencingToken()).isEqualTo(token);
			assertThat(lost.threadName()).isEqualTo(Thread.currentThread().getName());
			assertThat(lost.state()).isEqualTo(LockState.LOST);
		});
		assertThat(this.reasons).containsExactly(LockLossReason.SESSION_LOST);
		CompletableFuture<Long> nextToken = new CompletableFuture<>();
		new Thread(() -> {
			long next;
			try (LockHandle nextHandle = this.manager.acquire(request(mode))) {
				next = nextHandle.isAcquired() ? nextHandle.fencingToken() : -1;
			}
			catch (Throwable ex) {
				nextToken.completeExceptionally(ex);
				return;
			}
			nextToken.complete(next);
		}).start();
		assertThat(nextToken.get(30, TimeUnit.SECONDS)).isGreaterThan(token);
		handle.close();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void asyncLockGoesInDoubtThenHeldAgainWithTheSameSession(LockMode mode) throws Exception {
		start(new StandardConnectionStateErrorPolicy());
		try (AsyncLockManager async = this.manager.async(null)) {
			AsyncLockHandle handle = async.acquire(request(mode)).get(30, TimeUnit.SECONDS);
			long token = handle.fencingToken();
			assertThat(handle.isHeld()).isTrue();
			this.server.stop();
			await().atMost(WAIT).until(() -> state() == LockState.IN_DOUBT);
			assertThat(handle.isHeld()).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::assertHeld)
				.withMessageContaining("in doubt");
			this.server.restart();
			await().atMost(WAIT).until(handle::isHeld);
			assertThat(handle.fencingToken()).isEqualTo(token);
			handle.release().get(30, TimeUnit.SECONDS);
		}
		assertThat(this.losses).isEmpty();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void asyncLockIsLostWithItsSession(LockMode mode) throws Exception {
		start(new StandardConnectionStateErrorPolicy());
		try (AsyncLockManager async = this.manager.async(null)) {
			AsyncLockHandle handle = async.acquire(request(mode)).get(30, TimeUnit.SECONDS);
			long token = handle.fencingToken();
			ZooKeeperSessions.expire(this.client);
			await().atMost(WAIT).until(() -> state() == LockState.LOST);
			assertThat(handle.isHeld()).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::assertHeld)
				.withMessageContaining("was lost (SESSION_LOST)");
			assertThat(this.losses).singleElement().satisfies((lost) -> {
				assertThat(lost.threadName()).isEqualTo("async");
				assertThat(lost.fencingToken()).isEqualTo(token);
			});
			await().atMost(WAIT).until(() -> this.client.getZookeeperClient().isConnected());
			AsyncLockHandle next = async.acquire(request(mode)).get(30, TimeUnit.SECONDS);
			assertThat(next.fencingToken()).isGreaterThan(token);
			next.release().get(30, TimeUnit.SECONDS);
			handle.release().get(30, TimeUnit.SECONDS);
		}
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(value = LockMode.class, names = { "MUTEX", "WRITE" })
	void aWaitCancelledWhileSuspendedLeavesNoNodeOnceReconnected(LockMode mode) throws Exception {
		start(new StandardConnectionStateErrorPolicy());
		CountDownLatch suspended = latchOn(ConnectionState.SUSPENDED);
		CountDownLatch reconnected = latchOn(ConnectionState.RECONNECTED);
		long session = ZooKeeperSessions.sessionId(this.client);
		try (CuratorFramework otherClient = ZooKeeperTestSupport.startClient(this.server.getConnectString());
				CuratorLockManager other = new CuratorLockManager(otherClient, this.basePath, Duration.ofSeconds(20));
				AsyncLockManager async = this.manager.async(null)) {
			LockHandle held = other.acquire(request(mode));
			CompletableFuture<AsyncLockHandle> waiting = async.acquire(LockRequest.named("orders").keys("42")
				.mode(mode).timeout(Duration.ofMinutes(5)).build());
			await().atMost(WAIT).until(() -> ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath).size() == 2);
			this.server.stop();
			assertThat(suspended.await(30, TimeUnit.SECONDS)).isTrue();
			waiting.cancel(false);
			this.server.restart();
			assertThat(reconnected.await(30, TimeUnit.SECONDS)).isTrue();
			assertThat(ZooKeeperSessions.sessionId(this.client)).isEqualTo(session);
			await().atMost(WAIT).untilAsserted(() -> assertThat(ZooKeeperTestSupport.ephemeralNodes(this.client,
					this.basePath)).hasSize(1));
			held.close();
		}
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.manager.getRegistry().snapshot()).isEmpty());
		assertThat(ZooKeeperTestSupport.ephemeralNodes(this.client, this.basePath)).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void aLockReleasedWhenSuspendedAndTakenAgainOnReconnectionIsGranted(boolean onServer) throws Exception {
		start(new StandardConnectionStateErrorPolicy());
		LockRequest endless = LockRequest.named("orders").keys("42").timeout(Duration.ofNanos(Long.MAX_VALUE))
			.maxHold(Duration.ofNanos(Long.MAX_VALUE)).build();
		try (AsyncLockManager async = this.manager.async(null)) {
			AsyncLockHandle first = async.acquire(endless).get(30, TimeUnit.SECONDS);
			CompletableFuture<CompletableFuture<AsyncLockHandle>> again = new CompletableFuture<>();
			List<ConnectionState> states = new CopyOnWriteArrayList<>();
			this.client.getConnectionStateListenable().addListener((client, state) -> {
				states.add(state);
				if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
					first.release();
				}
				else if (state == ConnectionState.RECONNECTED && !again.isDone()) {
					again.complete(async.acquire(endless));
				}
			});
			if (onServer) {
				ZooKeeperSessions.expire(this.client);
			}
			else {
				ZooKeeperSessions.expireOnClient(this.client);
			}
			AsyncLockHandle second = again.get(30, TimeUnit.SECONDS).get(30, TimeUnit.SECONDS);
			assertThat(second.isHeld()).as("states %s", states).isTrue();
			second.release().get(30, TimeUnit.SECONDS);
		}
		await().atMost(WAIT).untilAsserted(() -> assertThat(ZooKeeperTestSupport.ephemeralNodes(this.client,
				this.basePath)).isEmpty());
	}

	@Test
	void lostPolicyKeepsLocksHeldThroughAShortDisconnection() throws Exception {
		start(new SessionConnectionStateErrorPolicy());
		CountDownLatch suspended = latchOn(ConnectionState.SUSPENDED);
		CountDownLatch reconnected = latchOn(ConnectionState.RECONNECTED);
		try (LockHandle handle = this.manager.acquire(request(LockMode.MUTEX))) {
			this.server.stop();
			assertThat(suspended.await(30, TimeUnit.SECONDS)).isTrue();
			await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(handle::isHeld);
			assertThat(state()).isEqualTo(LockState.HELD);
			this.server.restart();
			assertThat(reconnected.await(30, TimeUnit.SECONDS)).isTrue();
			await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(handle::isHeld);
			assertThatNoException().isThrownBy(handle::assertHeld);
		}
		assertThat(this.losses).isEmpty();
	}

	@Test
	void interruptOnLossInterruptsTheHolderButNotWhileInDoubt() throws Exception {
		start(new StandardConnectionStateErrorPolicy());
		this.manager.setInterruptOnLoss(true);
		CountDownLatch holding = new CountDownLatch(1);
		CompletableFuture<Boolean> interruptedWhileHeld = new CompletableFuture<>();
		Thread holder = new Thread(() -> {
			try (LockHandle handle = this.manager.acquire(request(LockMode.MUTEX))) {
				holding.countDown();
				try {
					// long work inside the lock
					Thread.sleep(TimeUnit.MINUTES.toMillis(2));
					interruptedWhileHeld.complete(false);
				}
				catch (InterruptedException ex) {
					interruptedWhileHeld.complete(!handle.isHeld() && state() == LockState.LOST);
				}
			}
			catch (Throwable ex) {
				interruptedWhileHeld.completeExceptionally(ex);
			}
		}, "long-worker");
		holder.start();
		assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
		this.server.stop();
		await().atMost(WAIT).until(() -> state() == LockState.IN_DOUBT);
		await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !interruptedWhileHeld.isDone());
		this.server.restart();
		await().atMost(WAIT).until(() -> state() == LockState.HELD);
		ZooKeeperSessions.expire(this.client);
		assertThat(interruptedWhileHeld.get(30, TimeUnit.SECONDS)).isTrue();
		holder.join(TimeUnit.SECONDS.toMillis(30));
		// the handler tells listeners after the interrupt, on its own thread
		await().atMost(WAIT).until(() -> !this.losses.isEmpty());
		assertThat(this.losses).hasSize(1);
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
	}

	@Test
	void releasedLockIsNotReportedLost() throws Exception {
		start(new StandardConnectionStateErrorPolicy());
		try (LockHandle handle = this.manager.acquire(request(LockMode.MUTEX))) {
			assertThat(handle.isHeld()).isTrue();
		}
		long expired = ZooKeeperSessions.expire(this.client);
		await().atMost(WAIT).until(() -> this.client.getZookeeperClient().isConnected()
				&& ZooKeeperSessions.sessionId(this.client) != expired);
		try (LockHandle handle = this.manager.acquire(request(LockMode.MUTEX))) {
			assertThat(handle.isHeld()).isTrue();
		}
		assertThat(this.losses).isEmpty();
	}

	@Test
	void templateThrowsWhenTheCallbackReturnsAfterItsLockWasLost() throws Exception {
		start(new StandardConnectionStateErrorPolicy());
		LockContext before = LockContext.find().orElse(null);
		LockTemplate template = new LockTemplate(this.manager);
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> template.execute(request(LockMode.WRITE), () -> {
				LockContext lock = LockContext.current();
				ZooKeeperSessions.expire(this.client);
				await().atMost(WAIT).until(() -> state() == LockState.LOST);
				assertThat(lock.isHeld()).isFalse();
				return "stale";
			}))
			.withMessageContaining("'orders' key '42'")
			.withMessageContaining("was lost (SESSION_LOST)");
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		// the callback's context is gone, whatever a test before this one in the same JVM left open
		assertThat(LockContext.find().orElse(null)).isSameAs(before);
	}

	@Test
	void aNodeFoundGoneOnALaterSessionIsLostWithItsSessionNotDeletedNorRevoked() throws Exception {
		start(new StandardConnectionStateErrorPolicy());
		LockEngine engine = ZooKeeperTestSupport.engine(this.manager);
		LockHandle first = this.manager.acquire(LockRequest.named("orders").keys("1").build());
		LockHandle second = this.manager.acquire(LockRequest.named("orders").keys("2").build());
		// Curator's connection events wait behind the handler's busy thread, as they did in the race
		CountDownLatch handlerFree = ZooKeeperTestSupport.occupy(engine.lossHandler());
		try {
			long expired = ZooKeeperSessions.expire(this.client);
			await().atMost(WAIT).until(() -> this.client.getZookeeperClient().isConnected()
					&& ZooKeeperSessions.sessionId(this.client) != expired);
			// the looks that raced ahead of LOST: a confirmation after a pause, and a revocation watch armed again
			// after a failed try, each finding its node gone on the new session
			LockRegistry.Entry one = entry("1");
			LockRegistry.Entry two = entry("2");
			engine.lossHandler().nodeGone(one);
			revocationWatch(engine).revoked(two);
			assertThat(one.state()).as("the look at key 1 leaves the loss to the connection events")
				.isEqualTo(LockState.HELD);
			assertThat(two.state()).as("the look at key 2 leaves the loss to the connection events")
				.isEqualTo(LockState.HELD);
		}
		finally {
			handlerFree.countDown();
		}
		await().atMost(WAIT).until(() -> this.reasons.size() == 2);
		assertThat(this.reasons).containsOnly(LockLossReason.SESSION_LOST);
		second.close();
		first.close();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
	}

	private LockRegistry.Entry entry(String key) {
		return this.manager.getRegistry()
			.entries(LockRegistry.Entry.OWNED)
			.stream()
			.filter((entry) -> key.equals(entry.key()))
			.findFirst()
			.orElseThrow();
	}

	// the revocation watch is private to the hold timers: reached by reflection
	private static RevocationWatch revocationWatch(LockEngine engine) throws ReflectiveOperationException {
		Field watch = HoldTimers.class.getDeclaredField("revocationWatch");
		watch.setAccessible(true);
		return (RevocationWatch) watch.get(engine.holdTimers());
	}

	private void start(ConnectionStateErrorPolicy policy) throws Exception {
		this.client = CuratorFrameworkFactory.builder()
			.connectString(this.server.getConnectString())
			.retryPolicy(new RetryNTimes(5, 200))
			.sessionTimeoutMs(15_000)
			.connectionTimeoutMs(2_000)
			.connectionStateErrorPolicy(policy)
			.build();
		this.client.start();
		assertThat(this.client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
		this.manager = new CuratorLockManager(this.client, this.basePath, Duration.ofSeconds(20));
		this.manager.addLockLossListener((lock, reason) -> {
			this.losses.add(lock);
			this.reasons.add(reason);
		});
	}

	private CountDownLatch latchOn(ConnectionState awaited) {
		CountDownLatch latch = new CountDownLatch(1);
		this.client.getConnectionStateListenable().addListener((client, state) -> {
			if (state == awaited) {
				latch.countDown();
			}
		});
		return latch;
	}

	private static LockRequest request(LockMode mode) {
		return LockRequest.named("orders").keys("42").mode(mode).permits(2).build();
	}

	private LockState state() {
		List<LockInfo> snapshot = this.manager.getRegistry().snapshot();
		return snapshot.isEmpty() ? null : snapshot.get(0).state();
	}

}
