package dev.zklock.autoconfigure.testcontainers;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import dev.zklock.autoconfigure.ZooKeeperConnectionDetails;
import dev.zklock.testsupport.DockerTest;
import dev.zklock.testsupport.ZooKeeperContainer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.junit.jupiter.SpringJUnitConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ZooKeeperContainerConnectionDetailsFactory} with a real container.
 */
@DockerTest
@Testcontainers
@SpringJUnitConfig
class ZooKeeperContainerConnectionDetailsFactoryTests {

	// named, since the image may be a local build rather than the official "zookeeper"
	@Container
	@ServiceConnection(name = "zookeeper")
	static final ZooKeeperContainer zookeeper = new ZooKeeperContainer();

	@Autowired
	private ZooKeeperConnectionDetails connectionDetails;

	@Test
	void connectionDetailsReachTheContainer() throws Exception {
		assertThat(this.connectionDetails.getConnectString())
			.isEqualTo(zookeeper.getHost() + ":" + zookeeper.clientPort());
		try (CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(this.connectionDetails.getConnectString())
			.retryPolicy(new ExponentialBackoffRetry(100, 5))
			.build()) {
			client.start();
			assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
			client.create().forPath("/service-connection", "ok".getBytes(StandardCharsets.UTF_8));
			assertThat(client.getData().forPath("/service-connection")).asString(StandardCharsets.UTF_8)
				.isEqualTo("ok");
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

	}

}
