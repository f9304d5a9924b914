package dev.zklock.integration.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of zk-lock's Spring Integration {@code LockRegistry}.
 */
@ConfigurationProperties("zk-lock.integration.lock-registry")
public class ZkLockIntegrationProperties {

	/**
	 * Whether to define a ZkLockRegistry bean as the application's LockRegistry,
	 * unless it defines one of its own. Off by default: Spring Integration is often
	 * on the class path without any use for distributed locks.
	 */
	private boolean enabled;

	/**
	 * Lock name under which the registry's keys live, as
	 * <base-path>/<name>/<key>; the name shown by the locks endpoint and the meters.
	 */
	private String name = "integration";

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getName() {
		return this.name;
	}

	public void setName(String name) {
		this.name = name;
	}

}
