package dev.zklock.sample;

/**
 * Keeps the database server that H2 starts for other instances
 * ({@code AUTO_SERVER=TRUE}) on the loopback interface. Without this, H2 listens on
 * every interface and tells the other instances to connect to the host's address.
 */
public final class LoopbackOnly {

	/**
	 * The system property H2 reads for the address it binds to and advertises.
	 */
	public static final String H2_BIND_ADDRESS = "h2.bindAddress";

	private LoopbackOnly() {
	}

	/**
	 * Set {@value #H2_BIND_ADDRESS} to 127.0.0.1 unless it is set already. Call it
	 * before the first database connection.
	 */
	public static void apply() {
		if (System.getProperty(H2_BIND_ADDRESS) == null) {
			System.setProperty(H2_BIND_ADDRESS, "127.0.0.1");
		}
	}

}
