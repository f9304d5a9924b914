package dev.zklock.core;

import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;

import dev.zklock.annotation.LockMode;

/**
 * {@link LockMode#READ} and {@link LockMode#WRITE} on one
 * {@link InterProcessReadWriteLock}, so that a thread holding the write lock can
 * also take the read lock.
 */
final class ReadWriteSlot extends LockSlot {

	private final InterProcessReadWriteLock lock;

	ReadWriteSlot(CuratorFramework client, String name, String key, String path) {
		super(name, key, path);
		this.lock = new InterProcessReadWriteLock(client, path);
	}

	@Override
	boolean acquire(LockMode mode, long waitMillis) throws Exception {
		return recipe(mode).acquire(waitMillis, TimeUnit.MILLISECONDS);
	}

	@Override
	void release(LockMode mode) throws Exception {
		recipe(mode).release();
	}

	private InterProcessMutex recipe(LockMode mode) {
		return (mode == LockMode.WRITE) ? this.lock.writeLock() : this.lock.readLock();
	}

}
