package dev.zklock.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt to take a mutex without blocking any thread and without belonging
 * to one: every ZooKeeper call runs in the background, and a watch on the
 * predecessor node wakes the attempt up. It follows {@code InterProcessMutex}'s
 * protocol (protected ephemeral sequential {@code lock-} nodes, lowest sequence
 * holds), so it excludes synchronous MUTEX holders of the same path too. Not
 * re-entrant: each attempt creates a node of its own. Callbacks run on
 * Curator's event thread and only issue further background calls.
 * <p>
 * The first read of the queue is sent right behind the create, without waiting
 * for its answer: ZooKeeper answers one session's requests in order, so that
 * listing already shows our node, and an uncontended attempt takes one round
 * trip instead of two. When it cannot be used (the create had to make the parent
 * first, or was retried after a connection loss) the queue is read again once our
 * node is known.
 */
final class AsyncMutex {

	private static final Logger logger = LoggerFactory.getLogger(AsyncMutex.class);

	private static final String LOCK_NAME = "lock-";

	private final WatcherRemoveCuratorFramework client;

	private final String path;

	private final LockOwnerData ownerData;

	private final boolean tryOnce;

	private final CompletableFuture<LockNode> result = new CompletableFuture<>();

	private final CompletableFuture<Void> removed = new CompletableFuture<>();

	private final Watcher watcher = (event) -> checkQueue();

	private String ourPath;

	private Stat ourStat;

	private boolean abandoned;

	private boolean firstReadPending;

	private volatile boolean watching;

	/**
	 * Create an attempt.
	 * @param client the client
	 * @param path the lock path
	 * @param ownerData the data stored in the node
	 * @param tryOnce whether to give up (and delete the node) when the lock is not
	 * free at the first look
	 */
	AsyncMutex(CuratorFramework client, String path, LockOwnerData ownerData, boolean tryOnce) {
		this.client = client.newWatcherRemoveCuratorFramework();
		this.path = path;
		this.ownerData = ownerData;
		this.tryOnce = tryOnce;
	}

	/**
	 * Start the attempt.
	 * @return completes with our node once we hold the mutex, with {@code null} when
	 * trying once found it taken, or exceptionally on ZooKeeper failure (our node is
	 * deleted then)
	 */
	CompletableFuture<LockNode> start() {
		synchronized (this) {
			this.firstReadPending = true;
		}
		try {
			byte[] data = this.ownerData.forCurrentThread();
			String nodePath = ZKPaths.makePath(this.path, LOCK_NAME);
			if (data != null) {
				this.client.create()
					.creatingParentContainersIfNeeded()
					.withProtection()
					.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
					.inBackground((client, event) -> created(event))
					.forPath(nodePath, data);
			}
			else {
				this.client.create()
					.creatingParentContainersIfNeeded()
					.withProtection()
					.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
					.inBackground((client, event) -> created(event))
					.forPath(nodePath);
			}
			readQueueBehindCreate();
		}
		catch (Exception ex) {
			this.removed.complete(null);
			fail(ex);
		}
		return this.result;
	}

	private void readQueueBehindCreate() {
		try {
			this.client.getChildren().inBackground((client, event) -> firstQueueRead(event)).forPath(this.path);
		}
		catch (Exception ex) {
			// read the queue once the create is answered instead
			boolean created;
			synchronized (this) {
				this.firstReadPending = false;
				created = this.ourPath != null;
			}
			if (created) {
				checkQueue();
			}
		}
	}

	// The listing sent behind the create: used when it shows our node, else the queue is read again
	private void firstQueueRead(CuratorEvent event) {
		String ourName;
		synchronized (this) {
			this.firstReadPending = false;
			if (this.ourPath == null) {
				// created() has not seen our node yet and reads the queue itself
				return;
			}
			ourName = ZKPaths.getNodeFromPath(this.ourPath);
		}
		if (event.getResultCode() == KeeperException.Code.OK.intValue() && event.getChildren() != null
				&& event.getChildren().contains(ourName)) {
			queueRead(event);
		}
		else {
			checkQueue();
		}
	}

	/**
	 * Completes once this attempt leaves no node behind: its node is confirmed
	 * deleted, or none was created. Exceptionally when the deletion could not be
	 * confirmed yet (Curator keeps deleting in the background).
	 * @return the future; never completes while the mutex is held
	 */
	CompletableFuture<Void> removed() {
		return this.removed;
	}

	/**
	 * Whether the attempt waits for a watch on its predecessor's node.
	 * @return whether it is queued behind another holder
	 */
	boolean isWatching() {
		return this.watching && !this.result.isDone();
	}

	/**
	 * Give up: stop waiting and delete our node, now or as soon as its creation is
	 * confirmed ({@link #removed()}). Does nothing once the mutex is held; release
	 * it instead.
	 */
	void abandon() {
		String toDelete;
		synchronized (this) {
			if (this.abandoned || this.result.isDone()) {
				return;
			}
			this.abandoned = true;
			toDelete = this.ourPath;
		}
		this.result.complete(null);
		this.client.removeWatchers();
		if (toDelete != null) {
			release();
		}
	}

	/**
	 * Release the held mutex by deleting our node; Curator keeps deleting it in the
	 * background when ZooKeeper fails.
	 * @return completes once ZooKeeper confirmed the deletion, exceptionally when it
	 * could not be confirmed yet
	 */
	CompletableFuture<Void> release() {
		String toDelete;
		synchronized (this) {
			toDelete = this.ourPath;
			this.ourPath = null;
		}
		this.client.removeWatchers();
		if (toDelete == null) {
			return CompletableFuture.completedFuture(null);
		}
		CompletableFuture<Void> deleted = delete(toDelete);
		deleted.whenComplete((ignored, ex) -> {
			if (ex != null) {
				this.removed.completeExceptionally(ex);
			}
			else {
				this.removed.complete(null);
			}
		});
		return deleted;
	}

	private void created(CuratorEvent event) {
		if (event.getResultCode() != KeeperException.Code.OK.intValue()) {
			this.removed.complete(null);
			fail(KeeperException.create(KeeperException.Code.get(event.getResultCode()), event.getPath()));
			return;
		}
		boolean abandonedMeanwhile;
		boolean firstReadPending;
		synchronized (this) {
			this.ourPath = event.getName();
			this.ourStat = event.getStat();
			abandonedMeanwhile = this.abandoned;
			firstReadPending = this.firstReadPending;
		}
		if (abandonedMeanwhile) {
			release();
			return;
		}
		if (!firstReadPending) {
			checkQueue();
		}
	}

	private void checkQueue() {
		this.watching = false;
		synchronized (this) {
			if (this.abandoned || this.result.isDone() || this.ourPath == null) {
				return;
			}
		}
		try {
			this.client.getChildren().inBackground((client, event) -> queueRead(event)).forPath(this.path);
		}
		catch (Exception ex) {
			fail(ex);
		}
	}

	private void queueRead(CuratorEvent event) {
		if (event.getResultCode() != KeeperException.Code.OK.intValue()) {
			fail(KeeperException.create(KeeperException.Code.get(event.getResultCode()), event.getPath()));
			return;
		}
		String ourName;
		synchronized (this) {
			if (this.abandoned || this.result.isDone() || this.ourPath == null) {
				return;
			}
			ourName = ZKPaths.getNodeFromPath(this.ourPath);
		}
		List<String> queue = new ArrayList<>(event.getChildren());
		queue.sort(Comparator.comparing(AsyncMutex::sequence));
		int index = queue.indexOf(ourName);
		if (index < 0) {
			fail(new KeeperException.NoNodeException("Lock node " + ourName + " under " + this.path
					+ " vanished while waiting, possibly with its session"));
		}
		else if (index == 0) {
			held();
		}
		else if (this.tryOnce) {
			this.client.removeWatchers();
			this.result.complete(null);
			release();
		}
		else {
			watch(ZKPaths.makePath(this.path, queue.get(index - 1)));
		}
	}

	// getData rather than exists: a watch on a node that is gone already is not left behind
	private void watch(String predecessor) {
		try {
			this.client.getData().usingWatcher(this.watcher).inBackground((client, event) -> {
				if (event.getResultCode() == KeeperException.Code.OK.intValue()) {
					this.watching = true;
				}
				else if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
					checkQueue();
				}
				else if (event.getResultCode() != KeeperException.Code.OK.intValue()) {
					fail(KeeperException.create(KeeperException.Code.get(event.getResultCode()), event.getPath()));
				}
			}).forPath(predecessor);
		}
		catch (Exception ex) {
			fail(ex);
		}
	}

	private void held() {
		String nodePath;
		Stat stat;
		synchronized (this) {
			nodePath = this.ourPath;
			stat = this.ourStat;
		}
		if (stat != null && stat.getCzxid() != 0) {
			this.result.complete(new LockNode(nodePath, stat.getCzxid(), stat.getEphemeralOwner()));
			return;
		}
		// Found again after a connection loss, without the create response: read the stat once
		try {
			this.client.checkExists().inBackground((client, event) -> {
				Stat read = event.getStat();
				if (read == null) {
					fail(new KeeperException.NoNodeException(nodePath));
				}
				else {
					this.result.complete(new LockNode(nodePath, read.getCzxid(), read.getEphemeralOwner()));
				}
			}).forPath(nodePath);
		}
		catch (Exception ex) {
			fail(ex);
		}
	}

	private void fail(Exception ex) {
		if (this.result.completeExceptionally(ex)) {
			logger.debug("Lock attempt at {} failed", this.path, ex);
			release();
		}
	}

	private CompletableFuture<Void> delete(String nodePath) {
		CompletableFuture<Void> deleted = new CompletableFuture<>();
		try {
			this.client.delete().guaranteed().inBackground((client, event) -> {
				int code = event.getResultCode();
				if (code == KeeperException.Code.OK.intValue() || code == KeeperException.Code.NONODE.intValue()) {
					deleted.complete(null);
				}
				else {
					deleted.completeExceptionally(KeeperException.create(KeeperException.Code.get(code), nodePath));
				}
			}).forPath(nodePath);
		}
		catch (Exception ex) {
			deleted.completeExceptionally(ex);
		}
		return deleted;
	}

	// Like Curator's standard driver: the sequence after the lock name, or the whole name
	private static String sequence(String child) {
		int index = child.lastIndexOf(LOCK_NAME);
		return (index >= 0) ? child.substring(index + LOCK_NAME.length()) : child;
	}

}
