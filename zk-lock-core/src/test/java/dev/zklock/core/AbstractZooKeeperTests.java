package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;

/**
 * One in-JVM ZooKeeper server and client per test class, and a fresh manager on
 * its own base path per test.
 */
abstract class AbstractZooKeeperTests {

	protected static TestingServer server;

	protected static CuratorFramework client;

	protected CuratorLockManager manager;

	protected AsyncLockManager asyncManager;

	protected String basePath;

	private @Nullable CuratorLockManager otherManager;

	@BeforeAll
	static void startZooKeeper() throws Exception {
		server = new TestingServer(true);
		client = ZooKeeperTestSupport.startClient(server.getConnectString());
	}

	@AfterAll
	static void stopZooKeeper() throws Exception {
		client.close();
		server.close();
	}

	@BeforeEach
	void createManager() {
		this.basePath = "/test-" + UUID.randomUUID();
		this.manager = new CuratorLockManager(client, this.basePath, Duration.ofSeconds(30));
		this.asyncManager = this.manager.async(null);
	}

	@AfterEach
	void closeManager() {
		if (this.otherManager != null) {
			this.otherManager.close();
			this.otherManager = null;
		}
		this.asyncManager.close();
		this.manager.close();
	}

	/**
	 * A second manager on the same client and base path, as another instance of the
	 * application has; created on first use and closed after the test.
	 * @return the manager
	 */
	protected CuratorLockManager otherManager() {
		if (this.otherManager == null) {
			this.otherManager = new CuratorLockManager(client, this.basePath, Duration.ofSeconds(30));
		}
		return this.otherManager;
	}

	protected boolean acquireInOtherThread(LockRequest request) throws Exception {
		CompletableFuture<Boolean> result = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			boolean acquired;
			try (LockHandle handle = this.manager.acquire(request)) {
				acquired = handle.isAcquired();
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
				return;
			}
			// answered once the handle is closed, so that its node is gone when the caller looks
			result.complete(acquired);
		});
		thread.start();
		return result.get(30, TimeUnit.SECONDS);
	}

	protected List<String> ephemeralNodes() throws Exception {
		return ZooKeeperTestSupport.ephemeralNodes(client, this.basePath);
	}

	/**
	 * The ephemeral nodes in the locks' queues: without the records that waits past
	 * the deadlock detection mark publish under {@code #waits}, whose timing depends
	 * on how long a wait lasted, not on the queue.
	 */
	protected List<String> queueNodes() throws Exception {
		String waits = ZKPaths.makePath(this.basePath, LockPaths.WAITS) + "/";
		return ephemeralNodes().stream().filter((path) -> !path.startsWith(waits)).toList();
	}

}
