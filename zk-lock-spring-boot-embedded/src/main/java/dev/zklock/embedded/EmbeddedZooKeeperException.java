package dev.zklock.embedded;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when the embedded ZooKeeper server cannot start. Says what went wrong and what
 * to do about it.
 */
public class EmbeddedZooKeeperException extends IllegalStateException {

	private final String action;

	/**
	 * Create a new exception.
	 * @param message what went wrong
	 * @param action what to do about it
	 * @param cause the underlying failure, or {@code null}
	 */
	public EmbeddedZooKeeperException(String message, String action, @Nullable Throwable cause) {
		super(message, cause);
		this.action = action;
	}

	/**
	 * Return what to do about the failure.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
