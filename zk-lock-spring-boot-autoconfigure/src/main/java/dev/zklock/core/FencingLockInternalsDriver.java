package dev.zklock.core;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;

/**
 * Creates the mutex node exactly like Curator's standard driver (protected,
 * ephemeral sequential, parents as containers) and keeps the node's creation zxid
 * from the create response: a fencing token that costs no extra round trip. One
 * driver belongs to one {@code InterProcessMutex}, used by one thread.
 */
class FencingLockInternalsDriver extends StandardLockInternalsDriver {

	private volatile long czxid;

	private volatile String nodePath;

	@Override
	public String createsTheLock(CuratorFramework client, String path, byte[] lockNodeBytes) throws Exception {
		Stat stat = new Stat();
		String ourPath = (lockNodeBytes != null)
				? client.create()
					.storingStatIn(stat)
					.creatingParentContainersIfNeeded()
					.withProtection()
					.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
					.forPath(path, lockNodeBytes)
				: client.create()
					.storingStatIn(stat)
					.creatingParentContainersIfNeeded()
					.withProtection()
					.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
					.forPath(path);
		this.czxid = stat.getCzxid();
		this.nodePath = ourPath;
		return ourPath;
	}

	/**
	 * The creation zxid of the node last created, read back from ZooKeeper when the
	 * create response carried no stat (a protected create found after a
	 * connection loss).
	 * @param client the client
	 * @return the zxid, or 0 when the node is gone
	 * @throws Exception on ZooKeeper failure
	 */
	long czxid(CuratorFramework client) throws Exception {
		long known = this.czxid;
		if (known != 0 || this.nodePath == null) {
			return known;
		}
		Stat stat = client.checkExists().forPath(this.nodePath);
		this.czxid = (stat != null) ? stat.getCzxid() : 0;
		return this.czxid;
	}

}
