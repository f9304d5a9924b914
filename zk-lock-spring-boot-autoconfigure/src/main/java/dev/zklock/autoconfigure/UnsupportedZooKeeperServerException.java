package dev.zklock.autoconfigure;

/**
 * Thrown at startup when zk-lock's client is connected to a ZooKeeper server older
 * than 3.5, which lacks the operations zk-lock's locks use: {@code create2} (a create
 * that returns the new node's stat, for fencing tokens) and container nodes.
 */
public class UnsupportedZooKeeperServerException extends IllegalStateException {

	/**
	 * The operation an older server refuses.
	 */
	public static final String MISSING_OPERATION = "create2";

	private final String connectString;

	private final String serverVersion;

	/**
	 * Create a new exception.
	 * @param connectString where the client is connected
	 * @param serverVersion the version the server reports, or a description when it
	 * does not say
	 */
	public UnsupportedZooKeeperServerException(String connectString, String serverVersion) {
		super("ZooKeeper at '%s' runs %s, which lacks the '%s' operation zk-lock needs (ZooKeeper 3.5 or newer)"
			.formatted(connectString, serverVersion, MISSING_OPERATION));
		this.connectString = connectString;
		this.serverVersion = serverVersion;
	}

	/**
	 * Return where the client is connected.
	 * @return the connection string
	 */
	public String getConnectString() {
		return this.connectString;
	}

	/**
	 * Return the version the server reports.
	 * @return the version, such as {@code ZooKeeper 3.4.14}
	 */
	public String getServerVersion() {
		return this.serverVersion;
	}

}
