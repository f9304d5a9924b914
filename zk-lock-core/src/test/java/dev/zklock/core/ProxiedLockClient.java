package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;

import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ZooKeeperProxy;

/**
 * A lock manager whose client reaches an in-JVM server through a
 * {@link ZooKeeperProxy}, so that a test can cut it off while its session expires, and
 * an observer client connected directly. It records when the client lost its session
 * and when it reconnected afterwards.
 */
final class ProxiedLockClient implements AutoCloseable {

	static final Duration WAIT = Duration.ofSeconds(30);

	final TestingServer server;

	final ZooKeeperProxy proxy;

	final CuratorFramework client;

	final CuratorFramework observer;

	final CuratorLockManager manager;

	final AsyncLockManager async;

	final String basePath;

	final CompletableFuture<Long> lost = new CompletableFuture<>();

	final CompletableFuture<Long> reconnected = new CompletableFuture<>();

	ProxiedLockClient(String name, String basePath) throws Exception {
		this.server = new TestingServer(true);
		this.basePath = basePath;
		this.proxy = ZooKeeperProxy.start(name, List.of(this.server.getPort()));
		this.client = ZooKeeperTestSupport.startClient(this.proxy.connectString());
		this.observer = ZooKeeperTestSupport.startClient(this.server.getConnectString());
		this.client.getConnectionStateListenable().addListener((c, state) -> {
			if (state == ConnectionState.LOST) {
				this.lost.complete(System.nanoTime());
			}
			else if (state == ConnectionState.RECONNECTED && this.lost.isDone()) {
				this.reconnected.complete(System.nanoTime());
			}
		});
		this.manager = new CuratorLockManager(this.client, this.basePath, WAIT);
		this.async = this.manager.async(null);
	}

	/**
	 * The session that owns an ephemeral node, as the observer sees it.
	 * @param node the node's path
	 * @return the session id, 0 when the node is gone
	 */
	long owner(String node) throws Exception {
		Stat stat = this.observer.checkExists().forPath(node);
		return (stat != null) ? stat.getEphemeralOwner() : 0;
	}

	static LockRequest request(LockMode mode, List<String> keys) {
		LockRequest.Builder builder = LockRequest.named("orders")
			.keys(keys.toArray(new String[0]))
			.mode(mode)
			.timeout(WAIT);
		return (mode == LockMode.SEMAPHORE) ? builder.permits(1).build() : builder.build();
	}

	static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	@Override
	public void close() throws Exception {
		this.async.close();
		this.manager.close();
		this.client.close();
		this.observer.close();
		this.proxy.close();
		this.server.close();
	}

}
