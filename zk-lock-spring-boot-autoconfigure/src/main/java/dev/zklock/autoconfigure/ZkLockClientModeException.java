package dev.zklock.autoconfigure;

/**
 * Thrown at startup when zk-lock cannot tell which Curator client to use: the
 * {@code zk-lock.client-mode} contradicts the other settings, there is no client to
 * share, or zk-lock would connect to a default server although the application
 * points Spring Cloud Zookeeper elsewhere. The message names every setting involved.
 */
public class ZkLockClientModeException extends IllegalStateException {

	private final String reason;

	private final String action;

	/**
	 * Create a new exception.
	 * @param reason what contradicts what, naming the settings
	 * @param action what to do about it
	 */
	public ZkLockClientModeException(String reason, String action) {
		super(reason + " " + action);
		this.reason = reason;
		this.action = action;
	}

	/**
	 * Return what contradicts what.
	 * @return the reason, naming the settings
	 */
	public String getReason() {
		return this.reason;
	}

	/**
	 * Return what to do about it.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
