package dev.zklock.autoconfigure;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;

import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.ClientCnxnSocketNetty;
import org.apache.zookeeper.client.ZKClientConfig;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.util.StringUtils;

/**
 * Connects the ZooKeeper client over TLS with a Spring Boot {@link SslBundle}, named
 * by {@value #PROPERTY}.
 * <p>
 * ZooKeeper's TLS client (the Netty one, in 3.9) takes no {@code SSLContext}: at each
 * connection it builds its own from the key and trust store files named in its
 * {@link ZKClientConfig}, and it does not read
 * {@code zookeeper.ssl.context.supplier.class} (only ZooKeeper's {@code SSLContext}
 * code reads it, which the Netty client does not use). So the
 * bundle's stores are written to private files ({@link SslBundleStoreFiles}), which
 * are rewritten when the bundle is reloaded and deleted on shutdown.
 */
final class SslBundleZooKeeperClientCustomizer implements CuratorFrameworkBuilderCustomizer, AutoCloseable {

	static final String PROPERTY = "zk-lock.ssl.bundle";

	private static final Logger logger = LoggerFactory.getLogger(SslBundleZooKeeperClientCustomizer.class);

	private static final String ENABLED_PROTOCOLS = "zookeeper.ssl.enabledProtocols";

	private static final String CIPHER_SUITES = "zookeeper.ssl.ciphersuites";

	private final String bundleName;

	private final SslBundle bundle;

	private final SslBundleStoreFiles files = new SslBundleStoreFiles();

	private SslBundleZooKeeperClientCustomizer(String bundleName, SslBundle bundle) {
		this.bundleName = bundleName;
		this.bundle = bundle;
	}

	/**
	 * Look up the bundle and write its stores.
	 * @param bundleName the bundle name
	 * @param sslBundles the application's bundles, or {@code null} when there are none
	 * @return the customizer
	 * @throws InvalidZkLockPropertyException naming {@value #PROPERTY} when there is no
	 * such bundle or its stores cannot be used
	 */
	static SslBundleZooKeeperClientCustomizer create(@Nullable String bundleName, @Nullable SslBundles sslBundles) {
		if (!StringUtils.hasText(bundleName)) {
			throw new InvalidZkLockPropertyException(PROPERTY, "(empty)", "it names no SSL bundle",
					"Set '" + PROPERTY + "' to the name of an SSL bundle, or remove it to connect without one.");
		}
		String action = "Declare it under 'spring.ssl.bundle.jks." + bundleName + "' or 'spring.ssl.bundle.pem."
				+ bundleName + "', or set '" + PROPERTY + "' to the name of a bundle that exists.";
		if (sslBundles == null) {
			throw new InvalidZkLockPropertyException(PROPERTY, bundleName,
					"there are no SSL bundles in this application (no SslBundles bean)", action);
		}
		SslBundle bundle;
		try {
			bundle = sslBundles.getBundle(bundleName);
		}
		catch (NoSuchSslBundleException ex) {
			throw new InvalidZkLockPropertyException(PROPERTY, bundleName,
					"no SSL bundle has that name (bundles: " + sslBundles.getBundleNames() + ")", action);
		}
		SslBundleZooKeeperClientCustomizer customizer = new SslBundleZooKeeperClientCustomizer(bundleName, bundle);
		customizer.write(bundle);
		sslBundles.addBundleUpdateHandler(bundleName, customizer::reload);
		return customizer;
	}

	private void write(SslBundle bundle) {
		try {
			this.files.write(bundle);
		}
		catch (GeneralSecurityException | IOException ex) {
			this.files.close();
			throw new InvalidZkLockPropertyException(PROPERTY, this.bundleName,
					"the bundle's stores could not be handed to the ZooKeeper client: " + ex.getMessage(),
					"Check the key password and alias of 'spring.ssl.bundle.*." + this.bundleName + "'.");
		}
	}

	private void reload(SslBundle updated) {
		try {
			this.files.write(updated);
			logger.info("zk-lock: SSL bundle '{}' reloaded; new ZooKeeper connections use it", this.bundleName);
		}
		catch (GeneralSecurityException | IOException ex) {
			logger.warn("zk-lock: SSL bundle '{}' was reloaded, but its stores could not be written; "
					+ "ZooKeeper connections go on with the previous ones: {}", this.bundleName, ex.toString());
		}
	}

	@Override
	public void customize(CuratorFrameworkFactory.Builder builder) {
		// Added to any client configuration set before, such as one for another client setting
		ZKClientConfig config = (builder.getZkClientConfig() != null) ? builder.getZkClientConfig()
				: new ZKClientConfig();
		config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
		config.setProperty(SslBundleTlsProblems.BUNDLE_NAME, this.bundleName);
		config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, ClientCnxnSocketNetty.class.getName());
		Path keyStore = this.files.keyStore();
		if (keyStore != null) {
			config.setProperty(ZooKeeperTlsClientConfig.KEY_STORE_LOCATION, keyStore.toString());
			config.setProperty(ZooKeeperTlsClientConfig.KEY_STORE_PASSWORD, this.files.password());
			config.setProperty(ZooKeeperTlsClientConfig.KEY_STORE_TYPE, SslBundleStoreFiles.TYPE);
		}
		Path trustStore = this.files.trustStore();
		if (trustStore != null) {
			config.setProperty(ZooKeeperTlsClientConfig.TRUST_STORE_LOCATION, trustStore.toString());
			config.setProperty(ZooKeeperTlsClientConfig.TRUST_STORE_PASSWORD, this.files.password());
			config.setProperty(ZooKeeperTlsClientConfig.TRUST_STORE_TYPE, SslBundleStoreFiles.TYPE);
		}
		// The bundle's protocol ("TLS" by default) names an SSLContext algorithm, not a
		// protocol version ZooKeeper could enable, so only the explicit options are passed
		SslOptions options = this.bundle.getOptions();
		if (options.getEnabledProtocols() != null) {
			config.setProperty(ENABLED_PROTOCOLS, String.join(",", options.getEnabledProtocols()));
		}
		if (options.getCiphers() != null) {
			config.setProperty(CIPHER_SUITES, String.join(",", options.getCiphers()));
		}
		builder.zkClientConfig(config);
	}

	@Override
	public void close() {
		this.files.close();
	}

}
