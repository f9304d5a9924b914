package dev.zklock.testsupport;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link ZooKeeperProxy} in front of a real server with a 500 ms tick.
 */
@TestInstance(Lifecycle.PER_CLASS)
class ZooKeeperProxyTests {

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

	private InJvmZooKeeper zookeeper;

	private CuratorFramework direct;

	@BeforeAll
	void startServer() throws InterruptedException {
		this.zookeeper = InJvmZooKeeper.builder().tickTime(Duration.ofMillis(500)).start();
		this.direct = TestClients.connect(this.zookeeper.connectString());
	}

	@AfterAll
	void stopServer() {
		this.direct.close();
		this.zookeeper.close();
	}

	@Test
	void passesTraffic() throws Exception {
		try (ZooKeeperProxy proxy = proxy();
				CuratorFramework client = TestClients.connect(proxy.connectString())) {
			TestClients.writeAndRead(client, "/proxy/pass", "through the proxy");
			assertThat(TestClients.read(this.direct, "/proxy/pass")).isEqualTo("through the proxy");
			assertThat(proxy.connectionsAccepted()).isEqualTo(1);
		}
	}

	@Test
	void blackholeFromAQuietMomentSuspendsTheClientAndPassKeepsItsSession() throws Exception {
		List<ConnectionState> states = new CopyOnWriteArrayList<>();
		try (ZooKeeperProxy proxy = proxy();
				CuratorFramework client = TestClients.connect(proxy.connectString(), SESSION_TIMEOUT, states)) {
			long session = client.getZookeeperClient().getZooKeeper().getSessionId();
			long quiet = proxy.blackholeWhenQuiet(Duration.ofMillis(1100), Duration.ofSeconds(10));
			assertThat(proxy.isBlackholed()).isTrue();
			// the client's read timeout (2/3 of 4 s) runs out inside a 2 s blackhole
			await().atMost(SESSION_TIMEOUT.dividedBy(2)).until(() -> states.contains(ConnectionState.SUSPENDED));
			proxy.pass();
			await().atMost(SESSION_TIMEOUT).until(() -> states.contains(ConnectionState.RECONNECTED));
			assertThat(quiet).isGreaterThanOrEqualTo(Duration.ofMillis(1100).toNanos());
			assertThat(states).doesNotContain(ConnectionState.LOST);
			assertThat(client.getZookeeperClient().getZooKeeper().getSessionId()).isEqualTo(session);
			TestClients.writeAndRead(client, "/proxy/healed", "same session");
		}
	}

	@Test
	void resetMakesTheClientReconnect() throws Exception {
		List<ConnectionState> states = new CopyOnWriteArrayList<>();
		try (ZooKeeperProxy proxy = proxy();
				CuratorFramework client = TestClients.connect(proxy.connectString(), SESSION_TIMEOUT, states)) {
			assertThat(proxy.reset()).isEqualTo(1);
			await().atMost(SESSION_TIMEOUT).until(() -> states.contains(ConnectionState.RECONNECTED));
			assertThat(states).containsSubsequence(ConnectionState.SUSPENDED, ConnectionState.RECONNECTED);
			assertThat(proxy.connectionsAccepted()).isGreaterThanOrEqualTo(2);
			TestClients.writeAndRead(client, "/proxy/reset", "reconnected");
		}
	}

	@Test
	void resetBeforeADeleteReachesTheServerKeepsTheNode() throws Exception {
		this.direct.create().creatingParentsIfNeeded().forPath("/proxy/kept");
		try (ZooKeeperProxy proxy = proxy(); ZooKeeper client = rawClient(proxy)) {
			CompletableFuture<Long> reset = proxy.resetOnNextDelete(false);
			assertThatExceptionOfType(KeeperException.ConnectionLossException.class)
				.isThrownBy(() -> client.delete("/proxy/kept", -1));
			assertThat(reset).isDone();
			assertThat(this.direct.checkExists().forPath("/proxy/kept")).isNotNull();
		}
	}

	@Test
	void resetAfterADeleteRanLosesOnlyItsReply() throws Exception {
		this.direct.create().creatingParentsIfNeeded().forPath("/proxy/gone");
		try (ZooKeeperProxy proxy = proxy(); ZooKeeper client = rawClient(proxy)) {
			CompletableFuture<Long> reset = proxy.resetOnNextDelete(true);
			assertThatExceptionOfType(KeeperException.ConnectionLossException.class)
				.isThrownBy(() -> client.delete("/proxy/gone", -1));
			assertThat(reset).isDone();
			assertThat(this.direct.checkExists().forPath("/proxy/gone")).isNull();
		}
	}

	private ZooKeeperProxy proxy() {
		return ZooKeeperProxy.start("test", List.of(this.zookeeper.port()));
	}

	// a client without retries, so that a connection loss surfaces as it is
	private static ZooKeeper rawClient(ZooKeeperProxy proxy) throws Exception {
		CountDownLatch connected = new CountDownLatch(1);
		ZooKeeper client = new ZooKeeper(proxy.connectString(), (int) SESSION_TIMEOUT.toMillis(), (event) -> {
			if (event.getState() == KeeperState.SyncConnected) {
				connected.countDown();
			}
		});
		if (!connected.await(30, TimeUnit.SECONDS)) {
			client.close();
			throw new IllegalStateException("Raw client did not connect through " + proxy);
		}
		return client;
	}

}
