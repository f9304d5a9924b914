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

	private final FencingLockInternalsDriver driver = new FencingLockInternalsDriver();

	private final InterProcessMutex mutex;

	MutexSlot(CuratorFramework client, String name, String key, String path) {
		super(name, key, path);
		this.client = client;
		this.mutex = new InterProcessMutex(client, path, this.driver);
	}

	@Override
	boolean acquire(LockMode mode, long waitMillis) throws Exception {
		return this.mutex.acquire(waitMillis, TimeUnit.MILLISECONDS);
	}

	@Override
	void release(LockMode mode) throws Exception {
		this.mutex.release();
	}

	@Override
	long fencingToken() throws Exception {
		return this.driver.czxid(this.client);
	}

}
