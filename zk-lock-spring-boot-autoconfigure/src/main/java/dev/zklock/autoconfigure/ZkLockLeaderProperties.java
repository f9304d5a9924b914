package dev.zklock.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties for zk-lock's leadership of roles.
 */
@ConfigurationProperties("zk-lock.leader")
public class ZkLockLeaderProperties {

	/**
	 * Whether this instance competes for roles. When false, it never leads: the
	 * methods it annotates with @Leader are always skipped, as on a read-only replica.
	 */
	private boolean enabled = true;

	/**
	 * Roles to take part in besides those of @Leader methods, for use through the
	 * LeaderElection bean. Each is one ZooKeeper path segment once encoded.
	 */
	private List<String> roles = new ArrayList<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public List<String> getRoles() {
		return this.roles;
	}

	public void setRoles(List<String> roles) {
		this.roles = roles;
	}

}
