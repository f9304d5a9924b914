package dev.zklock.testsupport;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ZooKeeperContainer}.
 */
@DockerTest
@Testcontainers
class ZooKeeperContainerTests {

	@Container
	static final ZooKeeperContainer zookeeper = new ZooKeeperContainer();

	@Test
	void clientWritesAndReads() throws Exception {
		assertThat(zookeeper.getDockerImageName()).isEqualTo(ZooKeeperContainer.imageName());
		assertThat(zookeeper.getContainerInfo().getHostConfig().getNetworkMode()).isEqualTo("host");
		assertThat(FourLetterWords.mode(zookeeper.clientPort())).isEqualTo(ServerMode.STANDALONE);
		try (CuratorFramework client = TestClients.connect(zookeeper.connectString())) {
			TestClients.writeAndRead(client, "/fixture/container", "hello");
		}
	}

}
