package dev.zklock.autoconfigure;

import org.apache.zookeeper.ClientCnxnSocketNetty;
import org.apache.zookeeper.client.ZKClientConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.util.StringUtils;

/**
 * Builds the {@link ZKClientConfig} of a client that connects over TLS.
 */
final class ZooKeeperTlsClientConfig {

	static final String KEY_STORE_LOCATION = "zookeeper.ssl.keyStore.location";

	static final String KEY_STORE_PASSWORD = "zookeeper.ssl.keyStore.password";

	static final String KEY_STORE_TYPE = "zookeeper.ssl.keyStore.type";

	static final String TRUST_STORE_LOCATION = "zookeeper.ssl.trustStore.location";

	static final String TRUST_STORE_PASSWORD = "zookeeper.ssl.trustStore.password";

	static final String TRUST_STORE_TYPE = "zookeeper.ssl.trustStore.type";

	private ZooKeeperTlsClientConfig() {
	}

	static ZKClientConfig create(ZkLockProperties.Tls tls) {
		ZKClientConfig config = new ZKClientConfig();
		config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
		config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, ClientCnxnSocketNetty.class.getName());
		setIfText(config, KEY_STORE_LOCATION, tls.getKeyStore());
		setIfText(config, KEY_STORE_PASSWORD, tls.getKeyStorePassword());
		setIfText(config, KEY_STORE_TYPE, tls.getKeyStoreType());
		setIfText(config, TRUST_STORE_LOCATION, tls.getTrustStore());
		setIfText(config, TRUST_STORE_PASSWORD, tls.getTrustStorePassword());
		setIfText(config, TRUST_STORE_TYPE, tls.getTrustStoreType());
		return config;
	}

	private static void setIfText(ZKClientConfig config, String key, @Nullable String value) {
		if (StringUtils.hasText(value)) {
			config.setProperty(key, value);
		}
	}

}
