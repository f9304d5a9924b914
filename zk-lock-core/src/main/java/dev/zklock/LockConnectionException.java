package dev.zklock;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock was not acquired because ZooKeeper could not be reached: the
 * wait ended by its deadline while the connection was down, a single try found it
 * down, or Curator gave up retrying a request. Nothing is held, and a node created
 * meanwhile is deleted once the connection is back, so the call may simply be run
 * again. Adapters whose framework answers "not acquired" in this case (such as
 * {@code Lock.tryLock}) translate it.
 */
public class LockConnectionException extends LockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new instance.
	 * @param message the detail message
	 */
	public LockConnectionException(String message) {
		super(message);
	}

	/**
	 * Create a new instance.
	 * @param message the detail message
	 * @param cause the cause
	 */
	public LockConnectionException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
