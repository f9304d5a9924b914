package dev.zklock.core;

import org.apache.zookeeper.common.PathUtils;
import org.jspecify.annotations.Nullable;

/**
 * Checks role names: each becomes one ZooKeeper path segment below the roles'
 * lock name, so it must not be blank and must encode to one valid, readable
 * segment, which the endpoint shows as the role.
 */
public final class RoleNames {

	private RoleNames() {
	}

	/**
	 * The problem with a role name, for a message that names where it came from.
	 * @param role the role name
	 * @return what is wrong, or {@code null} when it is fine
	 */
	public static @Nullable String problem(@Nullable String role) {
		if (role == null || role.isBlank()) {
			return "the role name is empty; name the role, such as \"order-poller\"";
		}
		if (!role.strip().equals(role)) {
			return "the role name '" + role + "' starts or ends with white space; remove it";
		}
		String segment = LockPaths.encode(role);
		try {
			PathUtils.validatePath("/" + segment);
		}
		catch (IllegalArgumentException ex) {
			return "the role name '" + role + "' is not a valid ZooKeeper path segment once encoded ('" + segment
					+ "'): " + ex.getMessage() + "; use letters, digits and '-'";
		}
		if (segment.length() > LockPaths.MAX_PLAIN_LENGTH) {
			// a hashed segment could not be read back as the role by the endpoint
			return "the role name '" + LockPaths.abbreviate(role) + "' is " + segment.length()
					+ " characters long once encoded, more than the " + LockPaths.MAX_PLAIN_LENGTH
					+ " of one readable path segment; use a shorter name";
		}
		return null;
	}

}
