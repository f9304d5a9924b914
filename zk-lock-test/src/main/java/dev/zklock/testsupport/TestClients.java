package dev.zklock.testsupport;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Curator clients for the fixtures' own tests.
 */
final class TestClients {

	private TestClients() {
	}

	/**
	 * Start a client and wait until it is connected.
	 * @param connectString the connection string
	 * @param sessionTimeout the session timeout to ask for
	 * @param states receives every connection state change
	 * @return the connected client
	 * @throws InterruptedException when interrupted
	 */
	static CuratorFramework connect(String connectString, Duration sessionTimeout, List<ConnectionState> states)
			throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs(Math.toIntExact(sessionTimeout.toMillis()))
			.connectionTimeoutMs(3000)
			.retryPolicy(new ExponentialBackoffRetry(100, 10, 1000))
			.build();
		client.getConnectionStateListenable().addListener((source, state) -> states.add(state));
		client.start();
		if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
			client.close();
			throw new IllegalStateException("Client did not connect to " + connectString + " within 30 s");
		}
		return client;
	}

	static CuratorFramework connect(String connectString) throws InterruptedException {
		return connect(connectString, Duration.ofSeconds(10), new CopyOnWriteArrayList<>());
	}

	/**
	 * Write data to a persistent node (creating it and its parents) and read it back.
	 * @param client the client
	 * @param path the node
	 * @param data the data
	 * @throws Exception when ZooKeeper fails
	 */
	static void writeAndRead(CuratorFramework client, String path, String data) throws Exception {
		byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
		if (client.checkExists().forPath(path) == null) {
			client.create().creatingParentsIfNeeded().forPath(path, bytes);
		}
		else {
			client.setData().forPath(path, bytes);
		}
		assertThat(read(client, path)).isEqualTo(data);
	}

	static String read(CuratorFramework client, String path) throws Exception {
		return new String(client.getData().forPath(path), StandardCharsets.UTF_8);
	}

}
