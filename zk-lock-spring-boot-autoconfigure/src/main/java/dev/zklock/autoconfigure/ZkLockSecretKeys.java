package dev.zklock.autoconfigure;

import java.util.Locale;

/**
 * Recognizes the keys of zk-lock's secret properties ({@code zk-lock.auth.credentials}
 * and the {@code zk-lock.tls.*-password} properties) in any of the forms Spring Boot
 * binds: kebab case, camel case or environment variables.
 */
final class ZkLockSecretKeys {

	private ZkLockSecretKeys() {
	}

	/**
	 * Return whether a property key names one of zk-lock's secrets.
	 * @param key the key, such as {@code zk-lock.auth.credentials} or
	 * {@code ZK_LOCK_TLS_KEYSTOREPASSWORD}
	 * @return whether its value must be hidden
	 */
	static boolean isSecret(String key) {
		if (key == null) {
			return false;
		}
		String normalized = key.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
		return normalized.startsWith("zklock")
				&& (normalized.endsWith("credentials") || normalized.endsWith("password"));
	}

}
