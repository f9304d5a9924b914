package dev.zklock.core;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Small helpers for the core tests: a started client and tree listings.
 */
final class ZooKeeperTestSupport {

	private ZooKeeperTestSupport() {
	}

	static CuratorFramework startClient(String connectString) throws InterruptedException {
		return startClient(connectString, 15_000);
	}

	/**
	 * A started client with a session timeout of its own, connected within 10 s.
	 */
	static CuratorFramework startClient(String connectString, int sessionTimeoutMs) throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.retryPolicy(new ExponentialBackoffRetry(50, 3))
			.sessionTimeoutMs(sessionTimeoutMs)
			.connectionTimeoutMs(Math.min(5_000, sessionTimeoutMs / 2))
			.build();
		client.start();
		if (!client.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS)) {
			throw new IllegalStateException("Could not connect to " + connectString);
		}
		return client;
	}

	/**
	 * Every path under (and including) the given one, depth first.
	 */
	static List<String> tree(CuratorFramework client, String root) throws Exception {
		List<String> paths = new ArrayList<>();
		collect(client, root, paths);
		return paths;
	}

	private static void collect(CuratorFramework client, String path, List<String> paths) throws Exception {
		List<String> children;
		try {
			children = client.getChildren().forPath(path);
		}
		catch (KeeperException.NoNodeException ex) {
			return;
		}
		paths.add(path);
		for (String child : children) {
			collect(client, ZKPaths.makePath(path, child), paths);
		}
	}

	/**
	 * The ephemeral nodes (lock nodes, leases) under a path.
	 */
	static List<String> ephemeralNodes(CuratorFramework client, String root) throws Exception {
		List<String> ephemerals = new ArrayList<>();
		for (String path : tree(client, root)) {
			Stat stat = client.checkExists().forPath(path);
			if (stat != null && stat.getEphemeralOwner() != 0) {
				ephemerals.add(path);
			}
		}
		return ephemerals;
	}

	/**
	 * Whether a thread is parked waiting for a lock, rather than running or waiting
	 * for a ZooKeeper response: a zk-lock acquirer parks on its {@link Acquisition},
	 * which tells whether its attempt's watch is set; a thread in one of Curator's
	 * own recipes waits in its lock loop.
	 */
	static boolean isWaitingInRecipe(Thread thread) {
		Thread.State state = thread.getState();
		if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
			return false;
		}
		if (LockSupport.getBlocker(thread) instanceof Acquisition acquisition) {
			return acquisition.isWatching();
		}
		StackTraceElement[] stack = thread.getStackTrace();
		boolean inRecipe = Arrays.stream(stack)
			.anyMatch((frame) -> frame.getClassName().startsWith("org.apache.curator.framework.recipes.locks.")
					&& frame.getMethodName().equals("internalLockLoop"));
		boolean inZooKeeperCall = Arrays.stream(stack)
			.anyMatch((frame) -> frame.getClassName().startsWith("org.apache.zookeeper."));
		// The parked frame is Object.wait, Object.wait0 on JDK 21+, or a renamed copy once BlockHound
		// (installed by the async tests in the same JVM) has instrumented Object.wait
		boolean inObjectWait = Arrays.stream(stack)
			.limit(3)
			.anyMatch((frame) -> frame.getClassName().equals("java.lang.Object") && frame.getMethodName().contains("wait"));
		return inRecipe && !inZooKeeperCall && inObjectWait;
	}


	/**
	 * The manager's engine, private to it: reached by reflection, for tests of one
	 * of its parts.
	 */
	static LockEngine engine(CuratorLockManager manager) throws ReflectiveOperationException {
		Field engine = CuratorLockManager.class.getDeclaredField("engine");
		engine.setAccessible(true);
		return (LockEngine) engine.get(manager);
	}

	/**
	 * Keep the loss handler's thread busy until the returned latch is counted down,
	 * so that Curator's connection events wait behind, as behind a busy handler.
	 * @return the latch that frees the thread
	 */
	static CountDownLatch occupy(ConnectionLossHandler handler) throws InterruptedException {
		CountDownLatch free = new CountDownLatch(1);
		CountDownLatch busy = new CountDownLatch(1);
		handler.execute(() -> {
			busy.countDown();
			try {
				free.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		if (!busy.await(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("The loss handler's thread did not take the task within 10 s");
		}
		return free;
	}

}
