package dev.zklock.autoconfigure;

import org.apache.zookeeper.client.ZKClientConfig;
import org.jspecify.annotations.Nullable;

/**
 * Retells a TLS problem found by {@link ZooKeeperTlsProbe} for a client whose stores
 * come from an SSL bundle: the probe names the {@code zk-lock.tls.*} store
 * properties, which such an application does not set, so the problem is told in
 * terms of the bundle and {@value SslBundleZooKeeperClientCustomizer#PROPERTY}.
 */
final class SslBundleTlsProblems {

	/**
	 * Key under which {@link SslBundleZooKeeperClientCustomizer} records the bundle
	 * name in the client's {@link ZKClientConfig}; ZooKeeper ignores it.
	 */
	static final String BUNDLE_NAME = "zk-lock.ssl.bundle";

	private static final String TLS_PROPERTIES = "zk-lock.tls.";

	private SslBundleTlsProblems() {
	}

	/**
	 * Tell a problem in terms of the client's SSL bundle, if it has one.
	 * @param problem the problem the probe found, or {@code null}
	 * @param clientConfig the client's configuration
	 * @return the problem as is without a bundle or when it is not about the stores,
	 * else the same problem naming the bundle
	 */
	static @Nullable ZooKeeperTlsException forClient(@Nullable ZooKeeperTlsException problem,
			ZKClientConfig clientConfig) {
		String bundle = clientConfig.getProperty(BUNDLE_NAME);
		if (problem == null || bundle == null || !problem.getProperty().startsWith(TLS_PROPERTIES)) {
			return problem;
		}
		String store = problem.getProperty().contains("trust-store") ? "truststore" : "keystore";
		String reason = problem.getReason()
			.replaceAll("'zk-lock\\.tls\\.trust-store[a-z-]*'", "the truststore of SSL bundle '" + bundle + "'")
			.replaceAll("'zk-lock\\.tls\\.key-store[a-z-]*'", "the keystore of SSL bundle '" + bundle + "'");
		String action = "Check the " + store + " of SSL bundle '" + bundle + "' ('"
				+ SslBundleZooKeeperClientCustomizer.PROPERTY + "'), under 'spring.ssl.bundle.jks." + bundle + "."
				+ store + ".*' or 'spring.ssl.bundle.pem." + bundle + "." + store + ".*': the truststore must hold "
				+ "the certificate of the CA that signed the server's certificate, and the keystore a client "
				+ "certificate and key that the server trusts.";
		return new ZooKeeperTlsException(problem.getConnectString(), SslBundleZooKeeperClientCustomizer.PROPERTY,
				reason, action, problem.getCause());
	}

}
