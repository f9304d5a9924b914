package dev.zklock.core;

import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;

import dev.zklock.annotation.LockMode;

/**
 * {@link LockMode#SEMAPHORE} on an {@link InterProcessSemaphoreV2}: one lease per
 * thread, however deep it re-enters.
 */
final class SemaphoreSlot extends LockSlot {

	private final InterProcessSemaphoreV2 semaphore;

	private Lease lease;

	SemaphoreSlot(CuratorFramework client, String name, String key, String path, int permits) {
		super(name, key, path);
		this.semaphore = new InterProcessSemaphoreV2(client, path, permits);
	}

	@Override
	boolean acquire(LockMode mode, long waitMillis) throws Exception {
		this.lease = this.semaphore.acquire(waitMillis, TimeUnit.MILLISECONDS);
		return this.lease != null;
	}

	@Override
	void release(LockMode mode) throws Exception {
		Lease held = this.lease;
		this.lease = null;
		if (held != null) {
			held.close();
		}
	}

}
