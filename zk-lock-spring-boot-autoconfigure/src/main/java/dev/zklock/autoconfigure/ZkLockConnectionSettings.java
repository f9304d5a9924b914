package dev.zklock.autoconfigure;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * Finds the zk-lock connection settings the application gives: the properties that
 * only a client of zk-lock's own can honour. Read from the environment, because
 * {@link ZkLockProperties} cannot tell a default from a value that was set.
 */
final class ZkLockConnectionSettings {

	/**
	 * The property that points Spring Cloud Zookeeper at its servers.
	 */
	static final String SPRING_CLOUD_CONNECT_STRING = "spring.cloud.zookeeper.connect-string";

	static final String CONNECT_STRING = "zk-lock.connect-string";

	private static final List<ConfigurationPropertyName> SETTINGS = List.of(CONNECT_STRING, "zk-lock.namespace",
			"zk-lock.session-timeout", "zk-lock.connection-timeout", "zk-lock.auth", "zk-lock.acl", "zk-lock.tls",
			"zk-lock.ssl.bundle")
		.stream()
		.map(ConfigurationPropertyName::of)
		.toList();

	// Settings of a dedicated client that a shared one cannot honour either, but that
	// do not choose the client
	private static final List<ConfigurationPropertyName> DEDICATED_ONLY = List
		.of("zk-lock.retry", "zk-lock.connection-loss-policy", "zk-lock.startup")
		.stream()
		.map(ConfigurationPropertyName::of)
		.toList();

	private static final ConfigurationPropertyName TLS_ENABLED = ConfigurationPropertyName.of("zk-lock.tls.enabled");

	private static final ConfigurationPropertyName EMBEDDED_ENABLED = ConfigurationPropertyName
		.of("zk-lock.embedded.enabled");

	private ZkLockConnectionSettings() {
	}

	/**
	 * Return the zk-lock connection properties that are set, by their canonical names.
	 * {@code zk-lock.tls.enabled=false} and {@code zk-lock.embedded.enabled=false}
	 * do not count.
	 * @param environment the environment
	 * @return the names, sorted; empty when none is set
	 */
	static List<String> given(Environment environment) {
		Binder binder = Binder.get(environment);
		boolean tlsEnabled = isTrue(binder, TLS_ENABLED);
		Set<String> names = new TreeSet<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.stream()
					.map((name) -> settingName(name, tlsEnabled))
					.filter(Objects::nonNull)
					.forEach(names::add);
			}
		}
		if (isTrue(binder, EMBEDDED_ENABLED)) {
			names.add(EMBEDDED_ENABLED.toString());
		}
		return List.copyOf(names);
	}

	private static boolean isTrue(Binder binder, ConfigurationPropertyName name) {
		return Boolean.TRUE.equals(binder.bind(name, Bindable.of(Boolean.class)).orElse(null));
	}

	/**
	 * Return the properties that only a dedicated client applies but that do not make
	 * zk-lock build one: retries, the connection-loss policy and the startup wait.
	 * @param environment the environment
	 * @return their names, sorted; empty when none is set
	 */
	static List<String> dedicatedOnly(Environment environment) {
		Set<String> names = new TreeSet<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.stream()
					.filter((name) -> DEDICATED_ONLY.stream()
						.anyMatch((prefix) -> prefix.equals(name) || prefix.isAncestorOf(name)))
					.forEach((name) -> names.add(name.toString()));
			}
		}
		return List.copyOf(names);
	}

	// The setting's canonical name, also when set as zk-lock.sessionTimeout, or null
	private static @Nullable String settingName(ConfigurationPropertyName name, boolean tlsEnabled) {
		for (ConfigurationPropertyName setting : SETTINGS) {
			if (setting.equals(name)) {
				return setting.toString();
			}
			if (setting.isAncestorOf(name)) {
				return (!setting.toString().equals("zk-lock.tls") || tlsEnabled) ? name.toString() : null;
			}
		}
		return null;
	}

	/**
	 * Return whether {@code zk-lock.connect-string} is set.
	 * @param environment the environment
	 * @return whether the connect string is given
	 */
	static boolean hasConnectString(Environment environment) {
		return Binder.get(environment).bind(CONNECT_STRING, String.class).isBound();
	}

	/**
	 * Return Spring Cloud Zookeeper's connect string.
	 * @param environment the environment
	 * @return the connect string, or {@code null} when not set
	 */
	static @Nullable String springCloudConnectString(Environment environment) {
		return Binder.get(environment).bind(SPRING_CLOUD_CONNECT_STRING, String.class).orElse(null);
	}

}
