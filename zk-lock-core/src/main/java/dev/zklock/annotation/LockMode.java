package dev.zklock.annotation;

/**
 * How a distributed lock is shared between holders.
 */
public enum LockMode {

	/**
	 * Exclusive, and re-entrant for the holding thread.
	 */
	MUTEX,

	/**
	 * Shared with other readers of the same key; excluded by a writer.
	 */
	READ,

	/**
	 * Exclusive against readers and writers of the same key. A thread holding
	 * the write lock may also take the read lock.
	 */
	WRITE,

	/**
	 * Shared by at most {@code permits} holders at once.
	 */
	SEMAPHORE

}
