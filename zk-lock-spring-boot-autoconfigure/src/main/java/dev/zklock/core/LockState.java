package dev.zklock.core;

/**
 * Where a lock tracked by a {@link LockRegistry} stands.
 */
public enum LockState {

	/**
	 * The thread is waiting for the lock.
	 */
	WAITING,

	/**
	 * The thread holds the lock.
	 */
	HELD

}
