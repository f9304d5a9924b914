package dev.zklock.metrics;

import java.time.Duration;
import java.util.UUID;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.LockRequest;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockMetricsAutoConfiguration;
import dev.zklock.LockManager;
import dev.zklock.core.OtherInstance;
import dev.zklock.testsupport.StoppableZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Connection state transitions and lost locks counted while the real ZooKeeper
 * server is stopped past the session timeout and restarted.
 */
class LockLossMetricsTests {

	private StoppableZooKeeper server;

	@BeforeEach
	void startServer() {
		this.server = StoppableZooKeeper.start();
	}

	@AfterEach
	void stopServer() {
		this.server.close();
	}

	@Test
	void countsTransitionsAndTheLocksLostWithTheSession() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class,
							ZkLockMetricsAutoConfiguration.class))
			.withBean(CuratorFramework.class, () -> this.server.newClient(2_000),
					(definition) -> definition.setDestroyMethodName("close"))
			.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("zk-lock.base-path=/loss-" + UUID.randomUUID())
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				LockManager manager = context.getBean(LockManager.class);
				assertThat(state(registry, "suspended")).isZero();
				try (OtherInstance.Holder holder = OtherInstance.hold(manager,
						LockRequest.named("payments").keys("p-1").build(), "payer")) {
					this.server.stop();
					await().atMost(Duration.ofSeconds(20)).until(() -> state(registry, "lost") == 1);
					assertThat(state(registry, "suspended")).isOne();
					// the loss reaches the lock's listeners after the LOST state reaches the state counter
					await().atMost(Duration.ofSeconds(10))
						.untilAsserted(() -> assertThat(registry.find("zk.lock.lost")
							.tags("name", "payments", "mode", "mutex", "reason", "session_lost")
							.counter())
							.isNotNull()
							.extracting(Counter::count)
							.isEqualTo(1.0));
					this.server.restart();
					await().atMost(Duration.ofSeconds(20)).until(() -> state(registry, "reconnected") == 1);
				}
				assertThat(registry.get("zk.lock.lost").counter().count()).isOne();
				assertThat(state(registry, "read_only")).isZero();
			});
	}

	private static double state(MeterRegistry registry, String state) {
		return registry.get("zk.lock.connection.state").tag("state", state).counter().count();
	}

}
