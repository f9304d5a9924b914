package dev.zklock;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock key is missing, blank or cannot be evaluated.
 */
public class LockKeyException extends LockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new instance.
	 * @param message the detail message
	 */
	public LockKeyException(String message) {
		super(message);
	}

	/**
	 * Create a new instance.
	 * @param message the detail message
	 * @param cause the cause
	 */
	public LockKeyException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
