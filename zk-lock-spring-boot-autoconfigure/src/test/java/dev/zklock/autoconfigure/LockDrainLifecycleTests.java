package dev.zklock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;

import dev.zklock.LockHandle;
import dev.zklock.LockLossReason;
import dev.zklock.LockLostEvent;
import dev.zklock.LockRequest;
import dev.zklock.LockManager;
import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shutdown drain as auto-configured, against a real ZooKeeper server: its
 * phase comes after Boot's executors and web server, it takes the drain timeout
 * from {@code spring.lifecycle.timeout-per-shutdown-phase}, and with a client the
 * application shares it drains and announces zk-lock's holds without closing that
 * client.
 */
class LockDrainLifecycleTests {

	@RegisterExtension
	static final ClassFixture<InJvmZooKeeper> server = ClassFixture.of(() -> InJvmZooKeeper.builder().start());

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class))
		.withPropertyValues("zk-lock.base-path=/drain-" + UUID.randomUUID());

	@Test
	void drainsLateInTheShutdownWithTheShutdownPhaseTimeout() {
		this.runner
			.withPropertyValues("zk-lock.connect-string=" + server.get().connectString(),
					"spring.lifecycle.timeout-per-shutdown-phase=7s")
			.run((context) -> {
				LockDrainLifecycle drain = context.getBean(LockDrainLifecycle.class);
				assertThat(drain.getPhase()).isLessThan(SmartLifecycle.DEFAULT_PHASE - 2048);
				assertThat(drain).hasFieldOrPropertyWithValue("timeout", Duration.ofSeconds(7));
			});
	}

	@Test
	void aStopThatIsNotACloseLeavesTheLocksInUse() {
		// as Spring's test framework pauses a cached context between test classes
		this.runner.withPropertyValues("zk-lock.connect-string=" + server.get().connectString()).run((context) -> {
			LockManager locks = context.getBean(LockManager.class);
			context.getSourceApplicationContext(ConfigurableApplicationContext.class).stop();
			context.getSourceApplicationContext(ConfigurableApplicationContext.class).start();
			try (LockHandle handle = locks.acquire(LockRequest.named("report").keys("daily").build())) {
				assertThat(handle.isHeld()).isTrue();
			}
		});
	}

	@Test
	void aSharedClientIsDrainedAndAnnouncedButNotClosed() throws Exception {
		try (CuratorFramework shared = CuratorFrameworkFactory.newClient(server.get().connectString(), new RetryOneTime(100))) {
			shared.start();
			assertThat(shared.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
			List<LockLostEvent> losses = new CopyOnWriteArrayList<>();
			CountDownLatch held = new CountDownLatch(1);
			CountDownLatch done = new CountDownLatch(1);
			CompletableFuture<Boolean> heldAfterShutdown = new CompletableFuture<>();
			String[] path = new String[1];
			this.runner.withBean(CuratorFramework.class, () -> shared, (definition) -> definition.setDestroyMethodName(""))
				.withBean("lossRecorder", ApplicationListener.class,
						() -> (ApplicationListener<LockLostEvent>) losses::add)
				.withPropertyValues("zk-lock.client-mode=shared", "spring.lifecycle.timeout-per-shutdown-phase=200ms")
				.run((context) -> {
					LockManager locks = context.getBean(LockManager.class);
					Thread worker = new Thread(() -> {
						try (LockHandle handle = locks.acquire(LockRequest.named("report").keys("daily").build())) {
							path[0] = handle.nodePath();
							held.countDown();
							done.await();
							heldAfterShutdown.complete(handle.isHeld());
						}
						catch (InterruptedException ex) {
							heldAfterShutdown.completeExceptionally(ex);
						}
					});
					worker.start();
					assertThat(held.await(20, TimeUnit.SECONDS)).isTrue();
				});
			done.countDown();
			assertThat(heldAfterShutdown.get(20, TimeUnit.SECONDS)).isFalse();
			assertThat(losses).singleElement().satisfies((loss) -> {
				assertThat(loss.getReason()).isEqualTo(LockLossReason.SHUTDOWN);
				assertThat(loss.getLockName()).isEqualTo("report");
				assertThat(loss.getKey()).isEqualTo("daily");
			});
			assertThat(shared.getState()).isEqualTo(CuratorFrameworkState.STARTED);
			assertThat(shared.checkExists().forPath(path[0])).as("the node given up").isNull();
		}
	}

}
