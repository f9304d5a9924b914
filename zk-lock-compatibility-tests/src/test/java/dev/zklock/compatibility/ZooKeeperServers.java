package dev.zklock.compatibility;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.data.Stat;

/**
 * Looks at a ZooKeeper server from outside the application: which nodes exist, with
 * which owner session and ACL. Anonymous unless credentials are given.
 */
final class ZooKeeperServers {

	private ZooKeeperServers() {
	}

	static CuratorFramework observer(String connectString) {
		return observer(connectString, null);
	}

	static CuratorFramework observer(String connectString, String digest) {
		CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.retryPolicy(new RetryOneTime(100));
		if (digest != null) {
			builder.authorization("digest", digest.getBytes());
		}
		CuratorFramework client = builder.build();
		client.start();
		try {
			if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Could not connect to " + connectString);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		return client;
	}

	static List<String> children(CuratorFramework client, String path) throws Exception {
		return (client.checkExists().forPath(path) != null) ? client.getChildren().forPath(path) : List.of();
	}

	static long owner(CuratorFramework client, String path) throws Exception {
		Stat stat = client.checkExists().forPath(path);
		if (stat == null) {
			throw new AssertionError("No node " + path);
		}
		return stat.getEphemeralOwner();
	}

	static long sessionId(CuratorFramework client) throws Exception {
		return client.getZookeeperClient().getZooKeeper().getSessionId();
	}

}
