package dev.zklock.core;

import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

import dev.zklock.annotation.LockMode;

/**
 * {@link LockMode#MUTEX} on an {@link InterProcessMutex} with a fencing driver.
 */
final class MutexSlot extends LockSlot {

	private final CuratorFramework client;

	private final FencingLockInternalsDriver driver;

	private final InterProcessMutex mutex;

	MutexSlot(CuratorFramework client, String name, String key, String path, LockOwnerData ownerData) {
		super(name, key, path);
		this.client = client;
		this.driver = new FencingLockInternalsDriver(ownerData);
		this.mutex = new InterProcessMutex(client, path, this.driver);
	}

	@Override
	LockNode acquire(LockMode mode, long waitMillis) throws Exception {
		if (!this.mutex.acquire(waitMillis, TimeUnit.MILLISECONDS)) {
			return null;
		}
		return lockNodeOrRelease(this.mutex, this.driver, this.client);
	}

	@Override
	void release(LockMode mode) throws Exception {
		this.mutex.release();
	}

}
