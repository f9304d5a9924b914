package dev.zklock.core;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * An in-JVM server and a client of it whose ZooKeeper handle fails chosen requests on chosen
 * paths with {@code SYSTEMERROR}, which Curator does not retry, while the
 * connection stays up: a request that fails after Curator's retries, with no new
 * connection event behind it. No proxy can make that fault, as dropping a packet
 * drops the connection. Failed requests never reach the server, so they leave no
 * watch behind.
 */
final class FaultyZooKeeper implements AutoCloseable {

	private final TestingServer server;

	private final CuratorFramework client;

	/** The requests that can be made to fail. */
	enum Op {

		EXISTS, DELETE, CHILDREN

	}

	private static final int ERROR = KeeperException.Code.SYSTEMERROR.intValue();

	// remaining failures per request and path; a negative count fails until cleared
	private final Map<String, AtomicInteger> armed = new ConcurrentHashMap<>();

	private final Map<Op, AtomicInteger> failed = new ConcurrentHashMap<>();

	// requests sent after one of their kind failed and answered by the server, counted once the callback returned
	private final Map<String, AtomicInteger> answered = new ConcurrentHashMap<>();

	// failures are answered on a thread of their own, as the server's are on the event thread
	private final ExecutorService answers = Executors.newSingleThreadExecutor((task) -> {
		Thread thread = new Thread(task, "faulty-zookeeper");
		thread.setDaemon(true);
		return thread;
	});

	/**
	 * Start an in-JVM server and a client of it whose handles (one per connection)
	 * fail as armed here.
	 */
	FaultyZooKeeper() throws Exception {
		this.server = new TestingServer(true);
		this.client = startClient(this.server.getConnectString());
	}

	TestingServer server() {
		return this.server;
	}

	CuratorFramework client() {
		return this.client;
	}

	private CuratorFramework startClient(String connectString) throws InterruptedException {
		ZookeeperFactory factory = new ZookeeperFactory() {

			@Override
			public ZooKeeper newZooKeeper(String connect, int sessionTimeout, Watcher watcher, boolean canBeReadOnly)
					throws Exception {
				return new Handle(connect, sessionTimeout, watcher, canBeReadOnly, null);
			}

			@Override
			public ZooKeeper newZooKeeper(String connect, int sessionTimeout, Watcher watcher, boolean canBeReadOnly,
					@Nullable ZKClientConfig config) throws Exception {
				return new Handle(connect, sessionTimeout, watcher, canBeReadOnly, config);
			}

		};
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.zookeeperFactory(factory)
			.retryPolicy(new ExponentialBackoffRetry(50, 3))
			.sessionTimeoutMs(15_000)
			.connectionTimeoutMs(5_000)
			.build();
		client.start();
		if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("Could not connect to " + connectString);
		}
		return client;
	}

	/**
	 * Fail the next requests of a kind on a path.
	 * @param times how many, or -1 for every one until {@link #clear}
	 */
	void fail(Op op, String path, int times) {
		this.armed.put(op + path, new AtomicInteger(times));
	}

	void clear(Op op, String path) {
		this.armed.remove(op + path);
	}

	/**
	 * How many requests of a kind failed so far.
	 */
	int failed(Op op) {
		AtomicInteger count = this.failed.get(op);
		return (count != null) ? count.get() : 0;
	}

	/**
	 * How many background requests of a kind on a path, sent after one of that kind
	 * failed, the server answered, their callback done: the requests tried again.
	 */
	int answered(Op op, String path) {
		AtomicInteger count = this.answered.get(op + path);
		return (count != null) ? count.get() : 0;
	}

	private boolean take(Op op, String path) {
		AtomicInteger remaining = this.armed.get(op + path);
		if (remaining == null) {
			return false;
		}
		int before = remaining.getAndUpdate((left) -> (left > 0) ? left - 1 : left);
		if (before == 0) {
			return false;
		}
		this.failed.computeIfAbsent(op, (o) -> new AtomicInteger()).incrementAndGet();
		return true;
	}

	@Override
	public void close() throws IOException {
		this.client.close();
		this.answers.shutdownNow();
		this.server.close();
	}

	// A failed request is answered on a thread of its own
	private boolean failedNow(Op op, String path, Runnable answer) {
		if (!take(op, path)) {
			return false;
		}
		this.answers.execute(answer);
		return true;
	}

	// Run after the callback of a request sent now: counts it when one of its kind failed before
	private Runnable counter(Op op, String path) {
		boolean afterFailure = failed(op) > 0;
		return () -> {
			if (afterFailure) {
				this.answered.computeIfAbsent(op + path, (p) -> new AtomicInteger()).incrementAndGet();
			}
		};
	}

	// Curator lists children with a Children2Callback and calls the Watcher variants (the boolean ones delegate)
	private final class Handle extends ZooKeeper {

		Handle(String connect, int sessionTimeout, Watcher watcher, boolean canBeReadOnly,
				@Nullable ZKClientConfig config) throws IOException {
			super(connect, sessionTimeout, watcher, canBeReadOnly, (config != null) ? config : new ZKClientConfig());
		}

		@Override
		public Stat exists(String path, Watcher watcher) throws KeeperException, InterruptedException {
			if (take(Op.EXISTS, path)) {
				throw KeeperException.create(KeeperException.Code.SYSTEMERROR, path);
			}
			return super.exists(path, watcher);
		}

		@Override
		public void exists(String path, Watcher watcher, AsyncCallback.StatCallback callback, Object context) {
			if (failedNow(Op.EXISTS, path, () -> callback.processResult(ERROR, path, context, null))) {
				return;
			}
			Runnable counted = counter(Op.EXISTS, path);
			super.exists(path, watcher, (rc, p, ctx, stat) -> {
				callback.processResult(rc, p, ctx, stat);
				counted.run();
			}, context);
		}

		@Override
		public void delete(String path, int version) throws InterruptedException, KeeperException {
			if (take(Op.DELETE, path)) {
				throw KeeperException.create(KeeperException.Code.SYSTEMERROR, path);
			}
			super.delete(path, version);
		}

		@Override
		public void delete(String path, int version, AsyncCallback.VoidCallback callback, Object context) {
			if (!failedNow(Op.DELETE, path, () -> callback.processResult(ERROR, path, context))) {
				super.delete(path, version, callback, context);
			}
		}

		@Override
		public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback callback,
				Object context) {
			if (failedNow(Op.CHILDREN, path, () -> callback.processResult(ERROR, path, context, null, null))) {
				return;
			}
			Runnable counted = counter(Op.CHILDREN, path);
			super.getChildren(path, watcher, (rc, p, ctx, children, stat) -> {
				callback.processResult(rc, p, ctx, children, stat);
				counted.run();
			}, context);
		}

	}

}
