package dev.zklock.autoconfigure;

import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import dev.zklock.autoconfigure.ZkLockProperties.ClientMode;

/**
 * The rule that picks zk-lock's client: the bean to share, or a dedicated client.
 * Pure logic over what the application has; contradictions throw a
 * {@link ZkLockClientModeException} naming every setting involved.
 *
 * @param mode the {@code zk-lock.client-mode}
 * @param settings the zk-lock connection settings that are given
 * @param candidates the names of the {@code CuratorFramework} beans that are default
 * candidates, zk-lock's own excluded
 * @param primary the name of the primary one among them, or {@code null}
 * @param hasConnectString whether zk-lock has a connect string of its own (the
 * property, a service connection or the embedded server)
 * @param springCloudConnectString {@code spring.cloud.zookeeper.connect-string}, or
 * {@code null}
 */
record ZkLockClientRule(ClientMode mode, List<String> settings, List<String> candidates, @Nullable String primary,
		boolean hasConnectString, @Nullable String springCloudConnectString) {

	private static final String MODE = "zk-lock.client-mode";

	/**
	 * Apply the rule.
	 * @return the name of the bean to share, or {@code null} for a dedicated client
	 */
	@Nullable String sharedBeanName() {
		return switch (this.mode) {
			case SHARED -> shared();
			case DEDICATED -> dedicated();
			case AUTO -> (this.settings.isEmpty() && !this.candidates.isEmpty()) ? onlyCandidate() : dedicated();
		};
	}

	private String shared() {
		if (!this.settings.isEmpty()) {
			throw new ZkLockClientModeException(
					"%s=shared contradicts %s: a shared client keeps the connection settings of its owner."
						.formatted(MODE, String.join(", ", this.settings)),
					"Remove %s to share the application's CuratorFramework, or set %s=dedicated (or auto) to give "
						.formatted(String.join(", ", this.settings), MODE)
							+ "zk-lock a client of its own with these settings.");
		}
		if (this.candidates.isEmpty()) {
			throw new ZkLockClientModeException("%s=shared but the application has no CuratorFramework bean to share%s."
				.formatted(MODE, springCloudHint()),
					"Add Spring Cloud Zookeeper (spring-cloud-starter-zookeeper-discovery or -config) or a "
							+ "CuratorFramework bean of your own, or set %s=auto with zk-lock.connect-string so that "
								.formatted(MODE)
							+ "zk-lock builds its own client.");
		}
		return onlyCandidate();
	}

	private String onlyCandidate() {
		if (this.candidates.size() == 1) {
			return this.candidates.get(0);
		}
		if (this.primary != null) {
			return this.primary;
		}
		throw new ZkLockClientModeException(
				"%s=%s found %d CuratorFramework beans to share (%s) and none of them is primary."
					.formatted(MODE, this.mode.name().toLowerCase(Locale.ROOT), this.candidates.size(),
							String.join(", ", this.candidates)),
				"Mark the one zk-lock should share @Primary, or set %s=dedicated and zk-lock.connect-string to give "
					.formatted(MODE) + "zk-lock a client of its own.");
	}

	private @Nullable String dedicated() {
		if (this.hasConnectString || this.springCloudConnectString == null) {
			return null;
		}
		String why = (this.mode == ClientMode.DEDICATED) ? MODE + "=dedicated"
				: "zk-lock has no CuratorFramework bean to share (Spring Cloud Zookeeper is not on the class path, "
						+ "or is disabled)";
		throw new ZkLockClientModeException("%s and zk-lock.connect-string is not set, while %s='%s' is: zk-lock "
			.formatted(why, ZkLockConnectionSettings.SPRING_CLOUD_CONNECT_STRING, this.springCloudConnectString)
				+ "would connect to its default, localhost:2181.",
				"Set zk-lock.connect-string to the ZooKeeper servers zk-lock should use (for example '%s'), "
					.formatted(this.springCloudConnectString)
						+ "or enable Spring Cloud Zookeeper so that zk-lock shares its client.");
	}

	private String springCloudHint() {
		return (this.springCloudConnectString != null) ? " (%s='%s' is set, but Spring Cloud Zookeeper is not on the "
			.formatted(ZkLockConnectionSettings.SPRING_CLOUD_CONNECT_STRING, this.springCloudConnectString)
				+ "class path, or is disabled)" : "";
	}

}
