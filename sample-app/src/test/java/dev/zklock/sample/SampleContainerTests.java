package dev.zklock.sample;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.autoconfigure.ZooKeeperConnectionDetails;
import dev.zklock.sample.load.SampleClient;
import dev.zklock.testsupport.DockerTest;
import dev.zklock.testsupport.ZooKeeperContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample against ZooKeeper in a container, connected through
 * {@code @ServiceConnection} instead of the embedded server.
 */
@DockerTest
@Testcontainers
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = { "zk-lock.embedded.enabled=false",
		"spring.datasource.url=jdbc:h2:mem:containers;DB_CLOSE_DELAY=-1" })
class SampleContainerTests {

	// named, since the image may be a local build rather than the official "zookeeper"
	@Container
	@ServiceConnection(name = "zookeeper")
	static final ZooKeeperContainer zookeeper = new ZooKeeperContainer();

	@LocalServerPort
	private int port;

	@Autowired
	private ZooKeeperConnectionDetails connectionDetails;

	@Autowired
	private LockTemplate locks;

	@Test
	void ordersAreLockedInTheContainersZooKeeper() throws Exception {
		assertThat(this.connectionDetails.getConnectString()).endsWith(":" + zookeeper.clientPort());
		SampleClient client = new SampleClient(SampleClient.httpClient(), URI.create("http://127.0.0.1:"
				+ this.port), Duration.ofSeconds(30));
		SampleClient.Answer health = client.get("actuator/health").expect(200);
		assertThat(health.body().at("/components/zkLock/status").asString()).isEqualTo("UP");
		assertThat(health.body().at("/components/zkLock/details/connectString").asString())
			.isEqualTo(this.connectionDetails.getConnectString());

		SampleClient.Answer order = client.placeOrder("berlin", "teapot", 2).expect(201);
		long id = order.body().get("id").asLong();
		assertThat(client.send("POST", "orders/" + id + "/payment", null).expect(200).body().get("status").asString())
			.isEqualTo("PAID");

		// a lock held by the application is a node in the container's ZooKeeper
		try (LockHandle held = this.locks.tryAcquire(LockRequest.named("stock").keys("berlin:teapot").build());
				CuratorFramework observer = CuratorFrameworkFactory.builder()
					.connectString(zookeeper.connectString())
					.retryPolicy(new ExponentialBackoffRetry(100, 5))
					.build()) {
			assertThat(held.isAcquired()).isTrue();
			observer.start();
			assertThat(observer.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
			List<String> holders = observer.getChildren().forPath("/locks/stock/berlin:teapot");
			assertThat(holders).hasSize(1);
			byte[] owner = observer.getData().forPath("/locks/stock/berlin:teapot/" + holders.get(0));
			assertThat(new String(owner, StandardCharsets.UTF_8)).contains("zk-lock-sample");
		}
	}

}
