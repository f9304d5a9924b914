package dev.zklock.integration;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.LockRegistry;

import dev.zklock.LockState;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockClient;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.LockManager;
import dev.zklock.integration.autoconfigure.ZkLockIntegrationAutoConfiguration;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link ZkLockRegistry}'s locks keep {@link Lock}'s contract while the ZooKeeper
 * server is stopped: {@code tryLock} answers {@code false} by its time,
 * {@code executeLocked} throws its {@code TimeoutException}, {@code lock()} waits
 * on until the server is back, and {@code unlock()} returns; after the restart,
 * the locks held through the outage are still held and nothing is left in
 * ZooKeeper. Curator gives up on a request after two connection timeouts (1 s, one
 * retry; with none, its deletion of a protected node spins while disconnected), so
 * a wait that did not survive zk-lock's failure would show within the test.
 */
class ZkLockRegistryOutageTests {

	private static final Logger logger = LoggerFactory.getLogger(ZkLockRegistryOutageTests.class);

	private static final Duration WAIT = Duration.ofSeconds(30);

	private InJvmZooKeeper server;

	@BeforeEach
	void startServer() {
		this.server = InJvmZooKeeper.builder().start();
	}

	@AfterEach
	void closeServer() {
		this.server.close();
	}

	@Test
	void tryLockAnswersFalseByItsTimeAndTheLocksHeldThroughTheOutageStayHeld() {
		runner().run((context) -> {
			LockRegistry<?> registry = context.getBean(LockRegistry.class);
			Lock held = registry.obtain("held");
			held.lock();
			stopServer(context);
			Lock other = registry.obtain("other");
			long start = System.nanoTime();
			boolean acquired = other.tryLock(1, TimeUnit.SECONDS);
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			logger.info("With the server stopped, tryLock(1, SECONDS) answered {} after {} ms", acquired,
					took.toMillis());
			assertThat(acquired).isFalse();
			assertThat(took).isGreaterThanOrEqualTo(Duration.ofSeconds(1)).isLessThan(Duration.ofMillis(1500));
			assertThat(other.tryLock()).as("a single try").isFalse();
			// a wait longer than Curator's give-up (1 s) still lasts its time
			start = System.nanoTime();
			assertThat(other.tryLock(3, TimeUnit.SECONDS)).isFalse();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
			this.server.start();
			assertThat(other.tryLock(10, TimeUnit.SECONDS)).as("after the restart").isTrue();
			// the hold is confirmed once the connection is back
			await().atMost(WAIT).until(() -> registryOf(context).count(LockState.IN_DOUBT) == 0);
			assertThat(held.tryLock(1, TimeUnit.SECONDS)).as("still held, re-entered").isTrue();
			held.unlock();
			held.unlock();
			other.unlock();
			assertNothingLeft(context);
		});
	}

	@Test
	void executeLockedThrowsItsTimeoutExceptionAndRunsNothing() {
		runner().run((context) -> {
			LockRegistry<?> registry = context.getBean(LockRegistry.class);
			stopServer(context);
			AtomicBoolean ran = new AtomicBoolean();
			assertThatExceptionOfType(TimeoutException.class)
				.isThrownBy(() -> registry.executeLocked("exec", Duration.ofSeconds(1), () -> ran.set(true)));
			assertThat(ran).isFalse();
			this.server.start();
			registry.executeLocked("exec", Duration.ofSeconds(10), () -> ran.set(true));
			assertThat(ran).isTrue();
			assertNothingLeft(context);
		});
	}

	@Test
	void lockWaitsThroughTheOutageAndGetsTheLockOnceTheServerIsBack() {
		runner().run((context) -> {
			Lock lock = context.getBean(LockRegistry.class).obtain("through");
			stopServer(context);
			CompletableFuture<Void> locked = new CompletableFuture<>();
			CountDownLatch release = new CountDownLatch(1);
			Thread holder = new Thread(() -> {
				try {
					lock.lock();
					locked.complete(null);
					release.await();
					lock.unlock();
				}
				catch (Throwable ex) {
					locked.completeExceptionally(ex);
				}
			}, "outage-holder");
			holder.start();
			// past several of Curator's connection timeouts, each of which ends one of zk-lock's waits
			await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10)).until(() -> !locked.isDone());
			this.server.start();
			locked.get(WAIT.toSeconds(), TimeUnit.SECONDS);
			assertThat(registryOf(context).heldCount()).isOne();
			release.countDown();
			holder.join(WAIT.toMillis());
			assertNothingLeft(context);
		});
	}

	@Test
	void lockInterruptiblyWaitsThroughTheOutageUntilInterrupted() {
		runner().run((context) -> {
			Lock lock = context.getBean(LockRegistry.class).obtain("interruptibly");
			stopServer(context);
			CompletableFuture<Throwable> ended = new CompletableFuture<>();
			Thread waiter = new Thread(() -> {
				try {
					lock.lockInterruptibly();
					ended.complete(null);
				}
				catch (Throwable ex) {
					ended.complete(ex);
				}
			}, "outage-waiter");
			waiter.start();
			await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> !ended.isDone());
			waiter.interrupt();
			assertThat(ended.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
			this.server.start();
			assertNothingLeft(context);
		});
	}

	@Test
	void unlockReturnsWhileTheServerIsStoppedAndTheNodeGoesOnceItIsBack() {
		runner().run((context) -> {
			Lock lock = context.getBean(LockRegistry.class).obtain("unlocked");
			lock.lock();
			stopServer(context);
			long start = System.nanoTime();
			lock.unlock();
			logger.info("With the server stopped, unlock() returned after {} ms",
					TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
			assertThat(((ZkRegistryLock) lock).isLocked()).isFalse();
			this.server.start();
			assertNothingLeft(context);
			assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
			lock.unlock();
		});
	}

	private ApplicationContextRunner runner() {
		// short connection timeout, one retry: Curator gives up on a request within a few seconds
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class,
							ZkLockIntegrationAutoConfiguration.class))
			.withPropertyValues("zk-lock.connect-string=" + this.server.connectString(),
					"zk-lock.base-path=/outage", "zk-lock.connection-timeout=1s", "zk-lock.retry.max-retries=1",
					"zk-lock.integration.lock-registry.enabled=true");
	}

	// Stopped, and seen unreachable by zk-lock: what a lock call meets during an outage
	private void stopServer(AssertableApplicationContext context) {
		this.server.stop();
		await().atMost(WAIT).until(() -> curator(context).getReachability().isUnreachable());
	}

	private static void assertNothingLeft(AssertableApplicationContext context) {
		CuratorFramework client = context.getBean(ZkLockClient.class).getCuratorFramework();
		await().atMost(WAIT).untilAsserted(() -> {
			assertThat(registryOf(context).snapshot()).isEmpty();
			assertThat(TestZooKeeper.ephemeralNodes(client, "/outage")).isZero();
		});
	}

	private static CuratorLockManager curator(AssertableApplicationContext context) {
		return (CuratorLockManager) InstrumentedLockManager.unwrap(context.getBean(LockManager.class));
	}

	private static dev.zklock.core.LockRegistry registryOf(AssertableApplicationContext context) {
		return curator(context).getRegistry();
	}

}
