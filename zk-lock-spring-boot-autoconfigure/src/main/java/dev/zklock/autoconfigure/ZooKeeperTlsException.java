package dev.zklock.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at startup when TLS keeps the client from connecting to ZooKeeper: the TLS
 * handshake with the server failed, a key or trust store could not be loaded, or the
 * server expects TLS while {@code zk-lock.tls.enabled} is false. Carries the property
 * to check and what to do.
 */
public class ZooKeeperTlsException extends IllegalStateException {

	private final String connectString;

	private final String property;

	private final String reason;

	private final String action;

	/**
	 * Create a new exception.
	 * @param connectString the connection string the client used
	 * @param property the full name of the property to check, such as
	 * {@code zk-lock.tls.trust-store}
	 * @param reason what went wrong, never containing a secret
	 * @param action what to do about it
	 * @param cause the TLS failure, or {@code null}
	 */
	public ZooKeeperTlsException(String connectString, String property, String reason, String action,
			@Nullable Throwable cause) {
		super("Could not connect to ZooKeeper at '%s': %s. %s".formatted(connectString, reason, action), cause);
		this.connectString = connectString;
		this.property = property;
		this.reason = reason;
		this.action = action;
	}

	/**
	 * Return the connection string the client used.
	 * @return the connection string
	 */
	public String getConnectString() {
		return this.connectString;
	}

	/**
	 * Return the full name of the property to check.
	 * @return the property name
	 */
	public String getProperty() {
		return this.property;
	}

	/**
	 * Return what went wrong.
	 * @return the reason
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
