package dev.zklock.core;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.annotation.LockMode;

/**
 * {@link LockMode#SEMAPHORE} on a {@link LeaseSemaphore}: one lease per thread,
 * however deep it re-enters.
 */
final class SemaphoreSlot extends LockSlot {

	private final LeaseSemaphore semaphore;

	SemaphoreSlot(CuratorFramework client, String name, String key, String path, int permits,
			LockOwnerData ownerData) {
		super(name, key, path);
		this.semaphore = new LeaseSemaphore(client, path, permits, ownerData);
	}

	@Override
	LockNode acquire(LockMode mode, long waitMillis) throws Exception {
		return this.semaphore.acquire(waitMillis);
	}

	@Override
	void release(LockMode mode) throws Exception {
		this.semaphore.release();
	}

}
