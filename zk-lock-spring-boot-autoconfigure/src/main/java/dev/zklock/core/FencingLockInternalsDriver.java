package dev.zklock.core;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Creates lock nodes like Curator's standard driver (protected, ephemeral
 * sequential, parents as containers) but keeps the node's stat from the create
 * response, so the creation zxid (the fencing token) and the owning session cost
 * no extra round trip, and stores the {@link LockOwnerData} in the node. One
 * driver belongs to one {@code InterProcessMutex}, used by one thread.
 */
class FencingLockInternalsDriver extends StandardLockInternalsDriver {

	private final String lockName;

	private final LockOwnerData ownerData;

	private volatile String nodePath;

	private volatile Stat stat;

	/**
	 * Create a driver for nodes named as the recipe asks.
	 * @param ownerData the node data
	 */
	FencingLockInternalsDriver(LockOwnerData ownerData) {
		this(null, ownerData);
	}

	/**
	 * Create a driver that names nodes itself.
	 * @param lockName the node name prefix used instead of the recipe's, or
	 * {@code null} to keep the recipe's
	 * @param ownerData the node data
	 */
	FencingLockInternalsDriver(String lockName, LockOwnerData ownerData) {
		this.lockName = lockName;
		this.ownerData = ownerData;
	}

	@Override
	public String createsTheLock(CuratorFramework client, String path, byte[] lockNodeBytes) throws Exception {
		String nodePath = (this.lockName != null)
				? ZKPaths.makePath(ZKPaths.getPathAndNode(path).getPath(), this.lockName) : path;
		CreateMode mode = CreateMode.EPHEMERAL_SEQUENTIAL;
		String sortingSequence = getSortingSequence();
		if (sortingSequence != null) {
			nodePath += sortingSequence;
			mode = CreateMode.EPHEMERAL;
		}
		byte[] data = this.ownerData.forCurrentThread();
		if (data == null) {
			data = lockNodeBytes;
		}
		Stat created = new Stat();
		String ourPath = (data != null)
				? client.create()
					.storingStatIn(created)
					.creatingParentContainersIfNeeded()
					.withProtection()
					.withMode(mode)
					.forPath(nodePath, data)
				: client.create()
					.storingStatIn(created)
					.creatingParentContainersIfNeeded()
					.withProtection()
					.withMode(mode)
					.forPath(nodePath);
		this.stat = created;
		this.nodePath = ourPath;
		return ourPath;
	}

	/**
	 * The path of the node created last, or {@code null}.
	 * @return the path
	 */
	String nodePath() {
		return this.nodePath;
	}

	/**
	 * The node created last. Its stat comes from the create response, except after
	 * a connection loss, when Curator finds a protected node it created without
	 * returning its stat: then it is read back once.
	 * @param client the client
	 * @return the node
	 * @throws Exception on ZooKeeper failure, or when the node is gone
	 */
	LockNode lockNode(CuratorFramework client) throws Exception {
		return resolve(client, this.nodePath, this.stat);
	}

	static LockNode resolve(CuratorFramework client, String path, Stat stat) throws Exception {
		if (stat != null && stat.getCzxid() != 0) {
			return new LockNode(path, stat.getCzxid(), stat.getEphemeralOwner());
		}
		Stat read = client.checkExists().forPath(path);
		if (read == null) {
			throw new KeeperException.NoNodeException(path);
		}
		return new LockNode(path, read.getCzxid(), read.getEphemeralOwner());
	}

}
