package dev.zklock.core;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

import dev.zklock.annotation.LockMode;

/**
 * One lock path as seen by one thread: the Curator recipe instance created for the
 * outermost acquisition, and how many times the thread entered it per mode. Only
 * the owning thread touches a slot.
 */
abstract class LockSlot {

	private static final int MODES = LockMode.values().length;

	private final String name;

	private final String key;

	private final String path;

	private final int[] counts = new int[MODES];

	private final LockRegistry.Entry[] entries = new LockRegistry.Entry[MODES];

	private int entered;

	LockSlot(String name, String key, String path) {
		this.name = name;
		this.key = key;
		this.path = path;
	}

	String name() {
		return this.name;
	}

	String key() {
		return this.key;
	}

	String path() {
		return this.path;
	}

	int count(LockMode mode) {
		return this.counts[mode.ordinal()];
	}

	void enter(LockMode mode) {
		this.counts[mode.ordinal()]++;
		this.entered++;
	}

	/**
	 * Leave once.
	 * @param mode the mode
	 * @return whether that was the outermost exit for the mode
	 */
	boolean exit(LockMode mode) {
		int left = count(mode) - 1;
		if (left < 0) {
			return true;
		}
		this.counts[mode.ordinal()] = left;
		this.entered--;
		return left == 0;
	}

	boolean isEmpty() {
		return this.entered == 0;
	}

	void entry(LockMode mode, LockRegistry.Entry entry) {
		this.entries[mode.ordinal()] = entry;
	}

	LockRegistry.Entry entry(LockMode mode) {
		return this.entries[mode.ordinal()];
	}

	LockRegistry.Entry removeEntry(LockMode mode) {
		LockRegistry.Entry entry = this.entries[mode.ordinal()];
		this.entries[mode.ordinal()] = null;
		return entry;
	}

	/**
	 * Acquire in ZooKeeper; called only when the thread does not hold the mode yet.
	 * @param mode the mode
	 * @param waitMillis longest wait, 0 to try once
	 * @return the holder's node, or {@code null} when the lock was not acquired
	 * @throws Exception on ZooKeeper failure or interruption; nothing is held then
	 */
	abstract LockNode acquire(LockMode mode, long waitMillis) throws Exception;

	/**
	 * Release in ZooKeeper; called at the outermost exit of the mode.
	 * @param mode the mode
	 * @throws Exception on ZooKeeper failure
	 */
	abstract void release(LockMode mode) throws Exception;

	/**
	 * The node of a mutex just acquired; releases the mutex when it cannot be told,
	 * so that nothing stays half-held.
	 */
	static LockNode lockNodeOrRelease(InterProcessMutex mutex, FencingLockInternalsDriver driver,
			CuratorFramework client) throws Exception {
		try {
			return driver.lockNode(client);
		}
		catch (Exception ex) {
			try {
				mutex.release();
			}
			catch (Exception releaseFailure) {
				ex.addSuppressed(releaseFailure);
			}
			throw ex;
		}
	}

}
