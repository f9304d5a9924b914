package dev.zklock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at startup when the client did not connect to ZooKeeper within
 * {@code zk-lock.startup.wait} and {@code zk-lock.startup.fail-fast} is true.
 */
public class ZooKeeperNotConnectedException extends IllegalStateException {

	private final String connectString;

	private final Duration wait;

	private final boolean tlsEnabled;

	private final @Nullable String authScheme;

	/**
	 * Create a new exception.
	 * @param connectString the connection string the client used
	 * @param wait how long startup waited
	 * @param tlsEnabled whether the client connected over TLS
	 * @param authScheme the authentication scheme, or {@code null}
	 */
	public ZooKeeperNotConnectedException(String connectString, Duration wait, boolean tlsEnabled,
			@Nullable String authScheme) {
		super("Could not connect to ZooKeeper at '%s' within %s (zk-lock.startup.wait)".formatted(connectString,
				ZkLockPropertiesValidator.format(wait)));
		this.connectString = connectString;
		this.wait = wait;
		this.tlsEnabled = tlsEnabled;
		this.authScheme = authScheme;
	}

	/**
	 * Return the connection string the client used.
	 * @return the connection string
	 */
	public String getConnectString() {
		return this.connectString;
	}

	/**
	 * Return how long startup waited for the connection.
	 * @return the wait
	 */
	public Duration getWait() {
		return this.wait;
	}

	/**
	 * Return whether the client connected over TLS.
	 * @return whether TLS was enabled
	 */
	public boolean isTlsEnabled() {
		return this.tlsEnabled;
	}

	/**
	 * Return the authentication scheme the client used.
	 * @return the scheme, or {@code null} when none was configured
	 */
	public @Nullable String getAuthScheme() {
		return this.authScheme;
	}

}
