package dev.zklock.core;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A counting semaphore with the node layout and protocol of Curator's
 * {@code InterProcessSemaphoreV2}, so that both can share a path: an acquirer takes
 * the mutex under {@code locks}, creates its lease (a protected ephemeral
 * sequential node under {@code leases}) and, holding the mutex, waits until at
 * most {@code maxLeases} leases exist. Unlike Curator's class it keeps the stat of
 * the lease from the create response, so the lease's creation zxid serves as
 * fencing token without an extra round trip, and it stores the owner data. One
 * instance belongs to one thread and holds at most one lease.
 */
final class LeaseSemaphore {

	private static final Logger logger = LoggerFactory.getLogger(LeaseSemaphore.class);

	private static final String LOCK_PARENT = "locks";

	private static final String LEASE_PARENT = "leases";

	private static final String LEASE_NAME = "lease-";

	private final WatcherRemoveCuratorFramework client;

	private final String leasesPath;

	private final InterProcessMutex mutex;

	private final int maxLeases;

	private final LockOwnerData ownerData;

	private final Watcher watcher;

	private String leasePath;

	private Stat leaseStat;

	LeaseSemaphore(CuratorFramework client, String path, int maxLeases, LockOwnerData ownerData) {
		this.client = client.newWatcherRemoveCuratorFramework();
		this.leasesPath = ZKPaths.makePath(path, LEASE_PARENT);
		this.mutex = new InterProcessMutex(client, ZKPaths.makePath(path, LOCK_PARENT),
				new FencingLockInternalsDriver(ownerData));
		this.maxLeases = maxLeases;
		this.ownerData = ownerData;
		this.watcher = (event) -> this.client.postSafeNotify(this);
	}

	/**
	 * Acquire one lease.
	 * @param waitMillis longest wait, 0 to try once
	 * @return the lease node, or {@code null} when none was free in time
	 * @throws Exception on ZooKeeper failure or interruption; no lease is held then
	 */
	LockNode acquire(long waitMillis) throws Exception {
		long start = System.nanoTime();
		long deadline = start + TimeUnit.MILLISECONDS.toNanos(waitMillis);
		for (int retry = 0;; retry++) {
			Attempt attempt = attempt(deadline);
			if (attempt == Attempt.GRANTED) {
				return leaseNode();
			}
			if (attempt == Attempt.TIMED_OUT) {
				return null;
			}
			long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			if (!this.client.getZookeeperClient()
				.getRetryPolicy()
				.allowRetry(retry, elapsed, RetryLoop.getDefaultRetrySleeper())) {
				throw new KeeperException.NoNodeException(
						"Lease node under " + this.leasesPath + " vanished while waiting, possibly a session loss");
			}
		}
	}

	// Releases the lease when its node cannot be told, so that nothing stays half-held
	private LockNode leaseNode() throws Exception {
		try {
			return FencingLockInternalsDriver.resolve(this.client, this.leasePath, this.leaseStat);
		}
		catch (Exception ex) {
			try {
				release();
			}
			catch (Exception releaseFailure) {
				ex.addSuppressed(releaseFailure);
			}
			throw ex;
		}
	}

	private Attempt attempt(long deadline) throws Exception {
		if (!this.mutex.acquire(remainingMillis(deadline), TimeUnit.MILLISECONDS)) {
			return Attempt.TIMED_OUT;
		}
		try {
			Stat stat = new Stat();
			String path = createLease(stat);
			boolean granted = false;
			try {
				Attempt attempt = awaitLease(ZKPaths.getNodeFromPath(path), deadline);
				granted = (attempt == Attempt.GRANTED);
				if (granted) {
					this.leasePath = path;
					this.leaseStat = stat;
				}
				return attempt;
			}
			finally {
				if (!granted) {
					deleteQuietly(path);
				}
				this.client.removeWatchers();
			}
		}
		finally {
			this.mutex.release();
		}
	}

	private String createLease(Stat stat) throws Exception {
		String path = ZKPaths.makePath(this.leasesPath, LEASE_NAME);
		byte[] data = this.ownerData.forCurrentThread();
		return (data != null)
				? this.client.create()
					.storingStatIn(stat)
					.creatingParentContainersIfNeeded()
					.withProtection()
					.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
					.forPath(path, data)
				: this.client.create()
					.storingStatIn(stat)
					.creatingParentContainersIfNeeded()
					.withProtection()
					.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
					.forPath(path);
	}

	// Holding the mutex, so no later acquirer can overtake: wait until our lease is within the limit
	private synchronized Attempt awaitLease(String nodeName, long deadline) throws Exception {
		while (true) {
			List<String> leases = this.client.getChildren().usingWatcher(this.watcher).forPath(this.leasesPath);
			if (!leases.contains(nodeName)) {
				logger.debug("Lease {} under {} vanished while waiting", nodeName, this.leasesPath);
				return Attempt.LEASE_VANISHED;
			}
			if (leases.size() <= this.maxLeases) {
				return Attempt.GRANTED;
			}
			long waitMillis = remainingMillis(deadline);
			if (waitMillis <= 0) {
				return Attempt.TIMED_OUT;
			}
			wait(waitMillis);
		}
	}

	/**
	 * Return the lease. Curator's guaranteed delete keeps deleting the node in the
	 * background when this fails.
	 * @throws Exception on ZooKeeper failure
	 */
	void release() throws Exception {
		String path = this.leasePath;
		this.leasePath = null;
		this.leaseStat = null;
		if (path != null) {
			delete(path);
		}
	}

	private void delete(String path) throws Exception {
		try {
			this.client.delete().guaranteed().forPath(path);
		}
		catch (KeeperException.NoNodeException ex) {
			// already gone with its session
		}
	}

	private void deleteQuietly(String path) {
		try {
			delete(path);
		}
		catch (Exception ex) {
			logger.debug("Could not delete lease {} right away; Curator deletes it in the background", path, ex);
		}
	}

	private static long remainingMillis(long deadline) {
		long remaining = deadline - System.nanoTime();
		return (remaining <= 0) ? 0 : (remaining + 999_999) / 1_000_000;
	}

	private enum Attempt {

		GRANTED, TIMED_OUT, LEASE_VANISHED

	}

}
