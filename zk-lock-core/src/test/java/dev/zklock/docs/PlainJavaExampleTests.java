package dev.zklock.docs;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * README.md's plain-Java example runs against a real server, with no Spring on the class
 * path, and leaves no lock node behind.
 */
class PlainJavaExampleTests {

	@Test
	void theExampleLocksAndReleasesOnARealServer() throws Exception {
		try (InJvmZooKeeper zookeeper = InJvmZooKeeper.builder().start()) {
			long first = PlainJavaExample.payOrder(zookeeper.connectString(), "order-1");
			long second = PlainJavaExample.payOrder(zookeeper.connectString(), "order-1");
			assertThat(second).as("each hold of the same key gets a larger fencing token").isGreaterThan(first);
			try (CuratorFramework client = CuratorFrameworkFactory.newClient(zookeeper.connectString(),
					new RetryOneTime(100))) {
				client.start();
				assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
				List<String> keys = client.getChildren().forPath("/zk-lock/orders");
				for (String key : keys) {
					assertThat(client.getChildren().forPath("/zk-lock/orders/" + key))
						.as("lock nodes left under " + key).isEmpty();
				}
			}
		}
	}

	@Test
	void springIsNotOnTheClassPath() {
		assertThatExceptionOfType(ClassNotFoundException.class)
			.isThrownBy(() -> Class.forName("org.springframework.core.SpringVersion"));
		assertThatExceptionOfType(ClassNotFoundException.class)
			.isThrownBy(() -> Class.forName("org.springframework.context.ApplicationEvent"));
	}

}
