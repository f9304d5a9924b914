package dev.zklock;

import org.jspecify.annotations.Nullable;

/**
 * Root of every exception zk-lock throws: a lock could not be acquired, held or
 * released as asked.
 */
public class LockException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new instance.
	 * @param message the detail message
	 */
	public LockException(String message) {
		super(message);
	}

	/**
	 * Create a new instance.
	 * @param message the detail message
	 * @param cause the cause
	 */
	public LockException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
