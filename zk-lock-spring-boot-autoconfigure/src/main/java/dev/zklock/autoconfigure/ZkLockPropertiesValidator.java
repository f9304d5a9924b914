package dev.zklock.autoconfigure;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.StringUtils;

/**
 * Checks {@link ZkLockProperties} at startup and throws an
 * {@link InvalidZkLockPropertyException} for the first value that zk-lock cannot use.
 */
final class ZkLockPropertiesValidator {

	/**
	 * Curator's {@code ExponentialBackoffRetry} silently caps retries at this value.
	 */
	static final int MAX_RETRIES_LIMIT = 29;

	private static final String PREFIX = "zk-lock.";

	private ZkLockPropertiesValidator() {
	}

	static void validate(ZkLockProperties properties) {
		validateConnectString(properties.getConnectString());
		validateNamespace(properties.getNamespace());
		requireMillis("session-timeout", properties.getSessionTimeout(), "40s");
		requireMillis("connection-timeout", properties.getConnectionTimeout(), "15s");
		validateRetry(properties.getRetry());
		requirePositive("startup.wait", properties.getStartup().getWait(), "10s");
		validateDefaultTimeout(properties.getDefaultTimeout());
		if (properties.getMaxHold() != null) {
			requirePositive("max-hold", properties.getMaxHold(), "10m");
		}
		if (properties.getHoldWarning() != null) {
			requirePositive("hold-warning", properties.getHoldWarning(), "30s");
		}
		validateBasePath(properties.getBasePath(), StringUtils.hasText(properties.getNamespace()));
		validateAuth(properties.getAuth());
		validateSslBundle(properties.getSsl(), properties.getTls());
		if (!StringUtils.hasText(properties.getSsl().getBundle())) {
			validateTls(properties.getTls());
		}
		validateEmbedded(properties.getEmbedded());
	}

	private static void validateConnectString(String connectString) {
		String property = PREFIX + "connect-string";
		String example = "Set '" + property + "' to a comma-separated list of host:port pairs, "
				+ "for example 127.0.0.1:2181, or set 'zk-lock.embedded.enabled=true' for development.";
		if (!StringUtils.hasText(connectString)) {
			throw new InvalidZkLockPropertyException(property, String.valueOf(connectString), "it must not be blank",
					example);
		}
		int chroot = connectString.indexOf('/');
		String hosts = (chroot >= 0) ? connectString.substring(0, chroot) : connectString;
		for (String entry : hosts.split(",", -1)) {
			String problem = checkHostAndPort(entry.trim());
			if (problem != null) {
				throw new InvalidZkLockPropertyException(property, connectString, problem, example);
			}
		}
	}

	private static @Nullable String checkHostAndPort(String entry) {
		if (entry.isEmpty()) {
			return "it contains an empty host entry";
		}
		String port;
		if (entry.startsWith("[")) {
			int end = entry.indexOf(']');
			if (end < 0) {
				return "IPv6 address '" + entry + "' has no closing ']'";
			}
			String rest = entry.substring(end + 1);
			if (!rest.isEmpty() && !rest.startsWith(":")) {
				return "'" + entry + "' is not of the form [address]:port";
			}
			port = rest.isEmpty() ? null : rest.substring(1);
		}
		else {
			int colon = entry.indexOf(':');
			if (colon != entry.lastIndexOf(':')) {
				return "'" + entry + "' has more than one ':'; write IPv6 addresses in brackets, such as [::1]:2181";
			}
			if (colon == 0) {
				return "'" + entry + "' has no host";
			}
			port = (colon < 0) ? null : entry.substring(colon + 1);
		}
		if (port != null && !isPort(port)) {
			return "'" + entry + "' has port '" + port + "', which is not a number from 1 to 65535";
		}
		return null;
	}

	private static boolean isPort(String port) {
		if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(Character::isDigit)) {
			return false;
		}
		int value = Integer.parseInt(port);
		return value >= 1 && value <= 65535;
	}

	private static void validateNamespace(@Nullable String namespace) {
		if (!StringUtils.hasText(namespace)) {
			return;
		}
		String property = PREFIX + "namespace";
		String action = "Set '" + property + "' to a path without leading or trailing '/', such as 'my-app' or "
				+ "'teams/my-app', or remove it.";
		if (namespace.startsWith("/") || namespace.endsWith("/")) {
			throw new InvalidZkLockPropertyException(property, namespace, "it must not start or end with '/'",
					action);
		}
		String problem = checkSegments(namespace.split("/", -1));
		if (problem == null && (namespace.equals("zookeeper") || namespace.startsWith("zookeeper/"))) {
			problem = "'/zookeeper' is reserved by ZooKeeper";
		}
		if (problem != null) {
			throw new InvalidZkLockPropertyException(property, namespace, problem, action);
		}
	}

	private static void validateBasePath(String basePath, boolean hasNamespace) {
		String property = PREFIX + "base-path";
		String action = "Set '" + property + "' to an absolute ZooKeeper path such as '/locks': it starts with '/', "
				+ "does not end with '/' (unless it is '/' itself) and has no empty, '.' or '..' segments.";
		if (basePath == null || !basePath.startsWith("/")) {
			throw new InvalidZkLockPropertyException(property, String.valueOf(basePath), "it must start with '/'",
					action);
		}
		if (basePath.equals("/")) {
			return;
		}
		if (basePath.endsWith("/")) {
			throw new InvalidZkLockPropertyException(property, basePath, "it must not end with '/'", action);
		}
		String problem = checkSegments(basePath.substring(1).split("/", -1));
		if (problem == null && !hasNamespace
				&& (basePath.equals("/zookeeper") || basePath.startsWith("/zookeeper/"))) {
			problem = "'/zookeeper' is reserved by ZooKeeper";
		}
		if (problem != null) {
			throw new InvalidZkLockPropertyException(property, basePath, problem, action);
		}
	}

	private static @Nullable String checkSegments(String[] segments) {
		for (String segment : segments) {
			if (segment.isEmpty()) {
				return "it contains an empty segment ('//')";
			}
			if (segment.equals(".") || segment.equals("..")) {
				return "it contains a relative segment '" + segment + "'";
			}
			for (int i = 0; i < segment.length(); i++) {
				if (isForbidden(segment.charAt(i))) {
					return "it contains the character \\u%04x, which ZooKeeper does not allow in paths"
						.formatted((int) segment.charAt(i));
				}
			}
		}
		return null;
	}

	private static boolean isForbidden(char c) {
		return c <= '\u001f' || (c >= '\u007f' && c <= '\u009f') || (c >= '\ud800' && c <= '\uf8ff')
				|| c >= '\ufff0';
	}

	private static void validateRetry(ZkLockProperties.Retry retry) {
		requireMillis("retry.base-sleep", retry.getBaseSleep(), "100ms");
		requireMillis("retry.max-sleep", retry.getMaxSleep(), "5s");
		if (retry.getMaxSleep().compareTo(retry.getBaseSleep()) < 0) {
			throw new InvalidZkLockPropertyException(PREFIX + "retry.max-sleep", format(retry.getMaxSleep()),
					"it is shorter than 'zk-lock.retry.base-sleep' (" + format(retry.getBaseSleep()) + ")",
					"Set 'zk-lock.retry.max-sleep' to at least 'zk-lock.retry.base-sleep'.");
		}
		int maxRetries = retry.getMaxRetries();
		if (maxRetries < 0 || maxRetries > MAX_RETRIES_LIMIT) {
			throw new InvalidZkLockPropertyException(PREFIX + "retry.max-retries", Integer.toString(maxRetries),
					"it must be from 0 to " + MAX_RETRIES_LIMIT + " (Curator's limit for exponential backoff)",
					"Set 'zk-lock.retry.max-retries' to a number from 0 to " + MAX_RETRIES_LIMIT
							+ ", such as 10, and use 'zk-lock.retry.max-sleep' to bound each sleep.");
		}
	}

	private static void validateDefaultTimeout(Duration timeout) {
		String property = PREFIX + "default-timeout";
		if (timeout == null || timeout.isNegative()) {
			throw new InvalidZkLockPropertyException(property, format(timeout), "it must not be negative",
					"Set '" + property + "' to a duration such as 10s, or to 0 to try each lock once without waiting.");
		}
	}

	private static void validateAuth(ZkLockProperties.Auth auth) {
		boolean hasScheme = StringUtils.hasText(auth.getScheme());
		boolean hasCredentials = StringUtils.hasText(auth.getCredentials());
		if (hasScheme && !hasCredentials) {
			throw new InvalidZkLockPropertyException(PREFIX + "auth.credentials", "(not set)",
					"'zk-lock.auth.scheme' is '" + auth.getScheme() + "' but no credentials are set",
					"Set 'zk-lock.auth.credentials' (for digest: user:password), or remove 'zk-lock.auth.scheme'.");
		}
		if (!hasScheme && hasCredentials) {
			throw new InvalidZkLockPropertyException(PREFIX + "auth.scheme", "(not set)",
					"'zk-lock.auth.credentials' is set but no scheme is",
					"Set 'zk-lock.auth.scheme' (such as 'digest'), or remove 'zk-lock.auth.credentials'.");
		}
		String credentials = auth.getCredentials();
		if (hasScheme && "digest".equals(auth.getScheme()) && credentials != null && credentials.indexOf(':') <= 0) {
			throw new InvalidZkLockPropertyException(PREFIX + "auth.credentials", InvalidZkLockPropertyException.HIDDEN,
					"the digest scheme expects credentials of the form user:password",
					"Set 'zk-lock.auth.credentials' to user:password.");
		}
	}

	private static void validateSslBundle(ZkLockProperties.Ssl ssl, ZkLockProperties.Tls tls) {
		if (StringUtils.hasText(ssl.getBundle())
				&& (StringUtils.hasText(tls.getKeyStore()) || StringUtils.hasText(tls.getTrustStore()))) {
			throw new InvalidZkLockPropertyException(PREFIX + "ssl.bundle", ssl.getBundle(),
					"both an SSL bundle and the 'zk-lock.tls.*' stores are set, and only one can be used",
					"Keep 'zk-lock.ssl.bundle' and remove 'zk-lock.tls.key-store' and 'zk-lock.tls.trust-store', "
							+ "or remove 'zk-lock.ssl.bundle'.");
		}
	}

	private static void validateTls(ZkLockProperties.Tls tls) {
		if (!tls.isEnabled()) {
			return;
		}
		if (!StringUtils.hasText(tls.getTrustStore())) {
			throw new InvalidZkLockPropertyException(PREFIX + "tls.trust-store", "(not set)",
					"TLS is enabled ('zk-lock.tls.enabled=true') but there is no trust store to verify the server",
					"Set 'zk-lock.tls.trust-store' to the trust store file (and 'zk-lock.tls.trust-store-password'), "
							+ "or set 'zk-lock.tls.enabled=false'.");
		}
		requireFile("tls.trust-store", tls.getTrustStore());
		if (StringUtils.hasText(tls.getKeyStore())) {
			requireFile("tls.key-store", tls.getKeyStore());
		}
	}

	private static void requireFile(String name, String location) {
		boolean exists;
		try {
			exists = Files.isRegularFile(Path.of(location));
		}
		catch (InvalidPathException ex) {
			exists = false;
		}
		if (!exists) {
			throw new InvalidZkLockPropertyException(PREFIX + name, location, "no such file",
					"Set 'zk-lock." + name + "' to the path of an existing file readable by the application.");
		}
	}

	private static void validateEmbedded(ZkLockProperties.Embedded embedded) {
		int port = embedded.getPort();
		if (port < 0 || port > 65535) {
			throw new InvalidZkLockPropertyException(PREFIX + "embedded.port", Integer.toString(port),
					"it must be from 0 to 65535",
					"Set 'zk-lock.embedded.port' to a free port, or to 0 to pick a free port at startup.");
		}
	}

	private static void requirePositive(String name, Duration value, String example) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidZkLockPropertyException(PREFIX + name, format(value), "it must be a positive duration",
					"Set 'zk-lock." + name + "' to a positive duration, such as " + example + ".");
		}
	}

	private static void requireMillis(String name, Duration value, String example) {
		requirePositive(name, value, example);
		if (value.compareTo(Duration.ofMillis(1)) < 0 || value.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
			throw new InvalidZkLockPropertyException(PREFIX + name, format(value),
					"it must be from 1ms to " + Integer.MAX_VALUE + "ms",
					"Set 'zk-lock." + name + "' to a duration in that range, such as " + example + ".");
		}
	}

	static String format(Duration duration) {
		if (duration == null) {
			return "(not set)";
		}
		if (duration.getNano() % 1_000_000 != 0) {
			return duration.toString();
		}
		if (duration.getNano() != 0) {
			return (duration.getSeconds() * 1000 + duration.getNano() / 1_000_000) + "ms";
		}
		return duration.getSeconds() + "s";
	}

}
