package dev.zklock;

/**
 * Thrown when a lock was not acquired within its timeout.
 */
public class LockTimeoutException extends LockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new instance.
	 * @param message the detail message
	 */
	public LockTimeoutException(String message) {
		super(message);
	}

}
