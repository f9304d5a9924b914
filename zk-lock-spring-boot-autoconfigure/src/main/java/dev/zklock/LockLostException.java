package dev.zklock;

/**
 * Thrown when a lock that was held can no longer be trusted: the ZooKeeper
 * connection was suspended or the session was lost while the lock was held.
 */
public class LockLostException extends LockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new instance.
	 * @param message the detail message
	 */
	public LockLostException(String message) {
		super(message);
	}

}
