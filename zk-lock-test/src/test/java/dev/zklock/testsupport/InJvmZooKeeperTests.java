package dev.zklock.testsupport;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link InJvmZooKeeper}.
 */
class InJvmZooKeeperTests {

	@Test
	void clientWritesAndReads() throws Exception {
		try (InJvmZooKeeper zookeeper = InJvmZooKeeper.builder().start();
				CuratorFramework client = TestClients.connect(zookeeper.connectString())) {
			assertThat(zookeeper.connectString()).isEqualTo("127.0.0.1:" + zookeeper.port());
			TestClients.writeAndRead(client, "/fixture/in-jvm", "hello");
			assertThat(FourLetterWords.mode(zookeeper.port())).isEqualTo(ServerMode.STANDALONE);
		}
	}

	@Test
	void restartKeepsPortAndData() throws Exception {
		List<ConnectionState> states = new CopyOnWriteArrayList<>();
		try (InJvmZooKeeper zookeeper = InJvmZooKeeper.builder().tickTime(Duration.ofMillis(500)).start();
				CuratorFramework client = TestClients.connect(zookeeper.connectString(), Duration.ofSeconds(2),
						states)) {
			TestClients.writeAndRead(client, "/fixture/kept", "before");
			zookeeper.stop();
			assertThat(zookeeper.isRunning()).isFalse();
			await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(ConnectionState.SUSPENDED));
			zookeeper.start();
			assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
			assertThat(TestClients.read(client, "/fixture/kept")).isEqualTo("before");
			TestClients.writeAndRead(client, "/fixture/kept", "after");
		}
	}

	@Test
	void emptyContainerParentIsRemovedBySweep() throws Exception {
		try (InJvmZooKeeper zookeeper = InJvmZooKeeper.builder()
			.containerCheckInterval(Duration.ofMillis(100))
			.start(); CuratorFramework client = TestClients.connect(zookeeper.connectString())) {
			assertThat(System.getProperty("znode.container.checkIntervalMs")).isNull();
			client.create().withMode(CreateMode.CONTAINER).forPath("/parent");
			client.create().withMode(CreateMode.EPHEMERAL).forPath("/parent/child");
			client.delete().forPath("/parent/child");
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> client.checkExists().forPath("/parent") == null);
		}
	}

}
