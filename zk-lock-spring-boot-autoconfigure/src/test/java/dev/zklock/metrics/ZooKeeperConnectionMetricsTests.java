package dev.zklock.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link ZooKeeperConnectionMetrics} on a client that several lock setups share, against
 * a real ZooKeeper server: each transition is counted once per meter registry, and
 * tagged with how the client is used.
 */
class ZooKeeperConnectionMetricsTests {

	@RegisterExtension
	static final ClassFixture<InJvmZooKeeper> server = ClassFixture.of(() -> InJvmZooKeeper.builder().start());

	@Test
	void aSharedClientIsCountedOncePerRegistry() throws Exception {
		CuratorFramework client = CuratorFrameworkFactory.newClient(server.get().connectString(), new RetryOneTime(100));
		client.start();
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		SimpleMeterRegistry other = new SimpleMeterRegistry();
		try (ZooKeeperConnectionMetrics first = new ZooKeeperConnectionMetrics(client, registry, "shared");
				ZooKeeperConnectionMetrics second = new ZooKeeperConnectionMetrics(client, registry, "shared");
				ZooKeeperConnectionMetrics third = new ZooKeeperConnectionMetrics(client, other, "shared")) {
			client.blockUntilConnected();
			client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
			// the other registry, counted by one instance, shows the transition was seen
			await().until(() -> lost(other) > 0);
			await().until(() -> lost(registry) > 0);
			assertThat(lost(other)).isEqualTo(1.0);
			assertThat(lost(registry)).isEqualTo(1.0);
			assertThat(registry.get(ZooKeeperConnectionMetrics.CONNECTION_STATE).tag("client", "shared").counters())
				.hasSize(5);
		}
		finally {
			client.close();
		}
	}

	@Test
	void closingTheCountingInstanceLetsAnotherCountTheClientAgain() throws Exception {
		CuratorFramework client = CuratorFrameworkFactory.newClient(server.get().connectString(), new RetryOneTime(100));
		client.start();
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		try {
			new ZooKeeperConnectionMetrics(client, registry, "dedicated").close();
			try (ZooKeeperConnectionMetrics again = new ZooKeeperConnectionMetrics(client, registry, "dedicated")) {
				client.blockUntilConnected();
				client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
				await().until(() -> lost(registry) > 0);
				assertThat(lost(registry)).isEqualTo(1.0);
			}
		}
		finally {
			client.close();
		}
	}

	private static double lost(MeterRegistry registry) {
		return registry.get(ZooKeeperConnectionMetrics.CONNECTION_STATE).tag("state", "lost").counter().count();
	}

}
