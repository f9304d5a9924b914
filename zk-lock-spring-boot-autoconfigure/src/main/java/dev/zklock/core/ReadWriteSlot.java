package dev.zklock.core;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.PredicateResults;
import org.apache.zookeeper.KeeperException;

import dev.zklock.annotation.LockMode;

/**
 * {@link LockMode#READ} and {@link LockMode#WRITE} as a pair of
 * {@link InterProcessMutex}es whose drivers follow Curator's
 * {@code InterProcessReadWriteLock}: the same node names ({@code __READ__},
 * {@code __WRIT__}) in one queue ordered by sequence, a writer waiting for its
 * predecessor, a reader for the first writer ahead of it, and a read lock taken by
 * the write holder sorted at its write node. Curator's class builds its mutexes
 * with drivers of its own, which would hide the create response; these drivers
 * keep it, so both modes have fencing tokens without an extra round trip. A thread
 * holding the write lock can also take the read lock.
 */
final class ReadWriteSlot extends LockSlot {

	static final String READ_LOCK_NAME = "__READ__";

	static final String WRITE_LOCK_NAME = "__WRIT__";

	private final CuratorFramework client;

	private final WriteDriver writeDriver;

	private final InterProcessMutex writeMutex;

	private final ReadDriver readDriver;

	private final InterProcessMutex readMutex;

	ReadWriteSlot(CuratorFramework client, String name, String key, String path, LockOwnerData ownerData) {
		super(name, key, path);
		this.client = client;
		this.writeDriver = new WriteDriver(ownerData);
		this.writeMutex = new InterProcessMutex(client, path, this.writeDriver);
		this.readDriver = new ReadDriver(ownerData, this.writeMutex, this.writeDriver);
		this.readMutex = new InterProcessMutex(client, path, this.readDriver);
	}

	@Override
	LockNode acquire(LockMode mode, long waitMillis) throws Exception {
		InterProcessMutex mutex = (mode == LockMode.WRITE) ? this.writeMutex : this.readMutex;
		if (!mutex.acquire(waitMillis, TimeUnit.MILLISECONDS)) {
			return null;
		}
		FencingLockInternalsDriver driver = (mode == LockMode.WRITE) ? this.writeDriver : this.readDriver;
		return lockNodeOrRelease(mutex, driver, this.client);
	}

	@Override
	void release(LockMode mode) throws Exception {
		((mode == LockMode.WRITE) ? this.writeMutex : this.readMutex).release();
	}

	/**
	 * Read and write nodes sort by their sequence number alone.
	 */
	private static class SortingDriver extends FencingLockInternalsDriver {

		SortingDriver(String lockName, LockOwnerData ownerData) {
			super(lockName, ownerData);
		}

		@Override
		public String fixForSorting(String str, String lockName) {
			return standardFixForSorting(str.replace(READ_LOCK_NAME, WRITE_LOCK_NAME), WRITE_LOCK_NAME);
		}

	}

	/**
	 * A writer gets the lock when it is first in the queue, else watches its
	 * predecessor (the standard mutex predicate).
	 */
	private static final class WriteDriver extends SortingDriver {

		WriteDriver(LockOwnerData ownerData) {
			super(WRITE_LOCK_NAME, ownerData);
		}

		@Override
		public PredicateResults getsTheLock(CuratorFramework client, List<String> children, String sequenceNodeName,
				int maxLeases) throws Exception {
			return super.getsTheLock(client, children, sequenceNodeName, 1);
		}

	}

	/**
	 * A reader gets the lock when no writer is ahead of it, else watches the first
	 * writer.
	 */
	private static final class ReadDriver extends SortingDriver {

		private final InterProcessMutex writeMutex;

		private final WriteDriver writeDriver;

		ReadDriver(LockOwnerData ownerData, InterProcessMutex writeMutex, WriteDriver writeDriver) {
			super(READ_LOCK_NAME, ownerData);
			this.writeMutex = writeMutex;
			this.writeDriver = writeDriver;
		}

		// The write holder's read node sorts at its write node, so that a writer queued behind it waits
		@Override
		protected String getSortingSequence() {
			if (!this.writeMutex.isOwnedByCurrentThread()) {
				return null;
			}
			return fixForSorting(this.writeDriver.nodePath(), WRITE_LOCK_NAME);
		}

		@Override
		public PredicateResults getsTheLock(CuratorFramework client, List<String> children, String sequenceNodeName,
				int maxLeases) throws Exception {
			if (this.writeMutex.isOwnedByCurrentThread()) {
				return new PredicateResults(null, true);
			}
			int firstWriter = Integer.MAX_VALUE;
			int ours = -1;
			for (int i = 0; i < children.size(); i++) {
				String child = children.get(i);
				if (child.contains(WRITE_LOCK_NAME)) {
					firstWriter = Math.min(firstWriter, i);
				}
				else if (child.startsWith(sequenceNodeName)) {
					ours = i;
					break;
				}
			}
			if (ours < 0) {
				throw new KeeperException.NoNodeException("Sequential path not found: " + sequenceNodeName);
			}
			boolean getsTheLock = ours < firstWriter;
			return new PredicateResults(getsTheLock ? null : children.get(firstWriter), getsTheLock);
		}

	}

}
