package dev.zklock.aop;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.core.LockPaths;
import dev.zklock.testsupport.ClientConnections;
import dev.zklock.testsupport.InJvmZooKeeper;

/**
 * One in-JVM ZooKeeper server shared by the lock tests, and the context runner
 * they start from: a Curator client bean and a base path of their own.
 */
public final class TestZooKeeper {

	private static InJvmZooKeeper server;

	private TestZooKeeper() {
	}

	public static synchronized String connectString() {
		if (server == null) {
			server = InJvmZooKeeper.builder().start();
			Runtime.getRuntime().addShutdownHook(new Thread(server::close));
		}
		return server.connectString();
	}

	public static CuratorFramework newClient() {
		return ClientConnections.started(
				CuratorFrameworkFactory.newClient(connectString(), 30_000, 10_000, new RetryOneTime(100)),
				Duration.ofSeconds(10));
	}

	/**
	 * A runner with the lock auto-configuration, a Curator client and a fresh base
	 * path.
	 */
	public static ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class))
			.withBean(CuratorFramework.class, TestZooKeeper::newClient, (definition) -> definition.setDestroyMethodName("close"))
			.withPropertyValues("zk-lock.base-path=/aop-tests/" + UUID.randomUUID());
	}

	/**
	 * Count the ephemeral nodes (held locks and waiting places in queues) under the
	 * path. The wait records of deadlock detection ({@code #waits}) are left out: a
	 * wait publishes one once it passes its mark (1 s), and removes it in the
	 * background once granted, so it is no place in a queue; the deadlock tests look at
	 * them directly.
	 */
	public static int ephemeralNodes(CuratorFramework client, String path) throws Exception {
		if (path.endsWith("/" + LockPaths.WAITS)) {
			return 0;
		}
		Stat stat = client.checkExists().forPath(path);
		if (stat == null) {
			return 0;
		}
		int count = (stat.getEphemeralOwner() != 0) ? 1 : 0;
		for (String child : childrenOf(client, path)) {
			count += ephemeralNodes(client, path + "/" + child);
		}
		return count;
	}

	/**
	 * Count every node under the path, the path itself excluded.
	 */
	public static int allNodes(CuratorFramework client, String path) throws Exception {
		if (client.checkExists().forPath(path) == null) {
			return 0;
		}
		int count = 0;
		for (String child : childrenOf(client, path)) {
			count += 1 + allNodes(client, path + "/" + child);
		}
		return count;
	}

	// A node may vanish between the check and the listing (released lock, container sweep)
	private static List<String> childrenOf(CuratorFramework client, String path) throws Exception {
		try {
			return client.getChildren().forPath(path);
		}
		catch (KeeperException.NoNodeException ex) {
			return List.of();
		}
	}

}
