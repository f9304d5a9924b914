package dev.zklock.integration;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.LockRegistry;

import dev.zklock.LockContext;
import dev.zklock.LockLossReason;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.LockInfo;
import dev.zklock.LockLossListener;
import dev.zklock.LockManager;
import dev.zklock.LockState;
import dev.zklock.integration.autoconfigure.ZkLockIntegrationAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The {@link Lock} contract of {@link ZkLockRegistry}'s locks, {@code executeLocked},
 * expiry and losses, against a real ZooKeeper server. A second application context
 * on the same base path stands for another process: it has a session of its own.
 */
class ZkLockRegistryTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final List<String> losses = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner runner = TestZooKeeper.contextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockIntegrationAutoConfiguration.class))
		.withPropertyValues("zk-lock.integration.lock-registry.enabled=true")
		.withBean(LockLossListener.class,
				() -> (LockInfo lock, LockLossReason reason) -> this.losses.add(lock.key() + ":" + reason));

	@Test
	void obtainGivesOneLockPerStringKey() {
		this.runner.run((context) -> {
			ZkLockRegistry registry = (ZkLockRegistry) context.getBean(LockRegistry.class);
			assertThat(registry.obtain("a")).isSameAs(registry.obtain("a")).isNotSameAs(registry.obtain("b"));
			assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(42))
				.withMessageContaining("obtain(lockKey)");
		});
	}

	@Test
	void tryLockIsFalseWhileAnotherProcessHoldsTheLockAndTrueOnceItUnlocks() {
		inTwoProcesses((first, second) -> {
			Lock mine = registry(first).obtain("k");
			Lock theirs = registry(second).obtain("k");
			mine.lock();
			assertThat(theirs.tryLock()).isFalse();
			assertThat(theirs.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
			mine.unlock();
			assertThat(theirs.tryLock()).isTrue();
			theirs.unlock();
		});
	}

	@Test
	void aTimedWaiterGetsTheLockWhenTheHolderUnlocks() {
		this.runner.run((context) -> {
			Lock lock = registry(context).obtain("handoff");
			lock.lock();
			CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
				try {
					boolean acquired = lock.tryLock(10, TimeUnit.SECONDS);
					lock.unlock();
					return acquired;
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			});
			await().atMost(WAIT).until(() -> registryOf(context).count(LockState.WAITING) == 1);
			lock.unlock();
			assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
		});
	}

	@Test
	void theLockIsReentrantForItsThreadAsTheLeaderInitiatorsHeartbeatNeeds() {
		inTwoProcesses((first, second) -> {
			Lock lock = registry(first).obtain("reentrant");
			Lock other = registry(second).obtain("reentrant");
			assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
			for (int beat = 0; beat < 5; beat++) {
				assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
			}
			lock.lock();
			lock.lockInterruptibly();
			assertThat(lock.tryLock()).isTrue();
			// 9 holds: the first 8 unlocks keep the lock
			for (int i = 0; i < 8; i++) {
				lock.unlock();
				assertThat(other.tryLock()).isFalse();
			}
			assertThat(registryOf(first).snapshot()).as("one node for all the holds").hasSize(1);
			lock.unlock();
			assertThat(other.tryLock()).isTrue();
			other.unlock();
		});
	}

	@Test
	void unlockByAThreadThatDoesNotHoldTheLockThrowsIllegalMonitorState() {
		this.runner.run((context) -> {
			Lock lock = registry(context).obtain("monitor");
			assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
			lock.lock();
			CompletableFuture<Throwable> fromOther = CompletableFuture.supplyAsync(() -> {
				try {
					lock.unlock();
					return null;
				}
				catch (IllegalMonitorStateException ex) {
					return ex;
				}
			});
			assertThat(fromOther.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalMonitorStateException.class)
				.hasMessageContaining("'monitor'");
			assertThat(registryOf(context).count(LockState.HELD)).isOne();
			lock.unlock();
		});
	}

	@Test
	void lockInterruptiblyEndsOnInterruptAndLeavesNoNode() {
		this.runner.run((context) -> {
			Lock lock = registry(context).obtain("interruptible");
			lock.lock();
			AtomicReference<Throwable> failure = new AtomicReference<>();
			Thread waiter = new Thread(() -> {
				try {
					lock.lockInterruptibly();
				}
				catch (Throwable ex) {
					failure.set(ex);
				}
			});
			waiter.start();
			await().atMost(WAIT).until(() -> registryOf(context).count(LockState.WAITING) == 1);
			waiter.interrupt();
			waiter.join(WAIT.toMillis());
			assertThat(failure.get()).isInstanceOf(InterruptedException.class);
			assertThat(registryOf(context).count(LockState.WAITING)).isZero();
			assertThat(childrenOf(context, "interruptible")).hasSize(1);
			lock.unlock();
		});
	}

	@Test
	void lockIsNotInterruptibleAndKeepsTheInterruptFlag() {
		this.runner.run((context) -> {
			Lock lock = registry(context).obtain("uninterruptible");
			lock.lock();
			AtomicBoolean flagKept = new AtomicBoolean();
			CountDownLatch acquired = new CountDownLatch(1);
			Thread waiter = new Thread(() -> {
				lock.lock();
				flagKept.set(Thread.currentThread().isInterrupted());
				lock.unlock();
				acquired.countDown();
			});
			waiter.start();
			await().atMost(WAIT).until(() -> registryOf(context).count(LockState.WAITING) == 1);
			waiter.interrupt();
			await().atMost(WAIT).until(() -> registryOf(context).count(LockState.WAITING) == 1);
			assertThat(acquired.getCount()).as("still waiting after the interrupt").isOne();
			lock.unlock();
			assertThat(acquired.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(flagKept).isTrue();
		});
	}

	@Test
	void executeLockedWorksInAllFourFormsAndGivesTheFencingToken() {
		inTwoProcesses((first, second) -> {
			LockRegistry<?> registry = registry(first);
			AtomicReference<Long> token = new AtomicReference<>();
			registry.executeLocked("exec", () -> token.set(LockContext.current().fencingToken()));
			assertThat(token.get()).isPositive();
			long next = registry.executeLocked("exec", () -> LockContext.current().fencingToken());
			assertThat(next).isGreaterThan(token.get());
			registry.executeLocked("exec", Duration.ofSeconds(1), () -> token.set(-1L));
			assertThat(token.get()).isEqualTo(-1L);
			assertThat(registry.executeLocked("exec", Duration.ofSeconds(1), () -> "done")).isEqualTo("done");
			Lock theirs = registry(second).obtain("exec");
			theirs.lock();
			assertThatExceptionOfType(TimeoutException.class)
				.isThrownBy(() -> registry.executeLocked("exec", Duration.ofMillis(200), () -> token.set(0L)));
			assertThatExceptionOfType(TimeoutException.class)
				.isThrownBy(() -> registry.executeLocked("exec", Duration.ofMillis(200), () -> "never"));
			assertThat(token.get()).isEqualTo(-1L);
			theirs.unlock();
		});
	}

	@Test
	void expiryForgetsUnusedLocksAndNeverAHeldOne() {
		this.runner.run((context) -> {
			ZkLockRegistry registry = (ZkLockRegistry) registry(context);
			Lock held = registry.obtain("held");
			registry.obtain("unused");
			held.lock();
			await().atMost(WAIT).untilAsserted(() -> {
				registry.expireUnusedOlderThan(0);
				assertThat(registry.size()).isOne();
			});
			assertThat(registry.obtain("held")).isSameAs(held);
			held.unlock();
			await().atMost(WAIT).untilAsserted(() -> {
				registry.expireUnusedOlderThan(0);
				assertThat(registry.size()).isZero();
			});
		});
	}

	@Test
	void aLostHoldIsReportedAndTheHoldersNextTryLockIsFalseThenCompetesAnew() {
		this.runner.run((context) -> {
			Lock lock = registry(context).obtain("revoked");
			lock.lock();
			assertThat(registryOf(context).snapshot()).extracting(LockInfo::name, LockInfo::key)
				.containsExactly(org.assertj.core.groups.Tuple.tuple("integration", "revoked"));
			curator(context).revoke("integration", "revoked", null, "test");
			await().atMost(WAIT).until(() -> this.losses.contains("revoked:REVOKED"));
			assertThat(lock.tryLock()).as("the heartbeat of a holder that lost the lock").isFalse();
			assertThat(lock.tryLock()).as("competing anew").isTrue();
			lock.unlock();
			assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		});
	}

	// a second context on the first one's base path, with a session of its own
	private void inTwoProcesses(TwoProcesses test) {
		this.runner.run((first) -> this.runner.withPropertyValues(basePath(first))
			.run((second) -> test.accept(first, second)));
	}

	@FunctionalInterface
	interface TwoProcesses {

		void accept(AssertableApplicationContext first, AssertableApplicationContext second) throws Throwable;

	}

	static String basePath(AssertableApplicationContext context) {
		return "zk-lock.base-path=" + context.getEnvironment().getProperty("zk-lock.base-path");
	}

	static LockRegistry<?> registry(AssertableApplicationContext context) {
		return context.getBean(LockRegistry.class);
	}

	static CuratorLockManager curator(AssertableApplicationContext context) {
		return (CuratorLockManager) InstrumentedLockManager.unwrap(context.getBean(LockManager.class));
	}

	static dev.zklock.core.LockRegistry registryOf(AssertableApplicationContext context) {
		return curator(context).getRegistry();
	}

	static List<String> childrenOf(AssertableApplicationContext context, String key) throws Exception {
		CuratorLockManager manager = curator(context);
		return context.getBean(dev.zklock.autoconfigure.ZkLockClient.class).getCuratorFramework().getChildren()
			.forPath(manager.pathFor("integration", key));
	}

}
