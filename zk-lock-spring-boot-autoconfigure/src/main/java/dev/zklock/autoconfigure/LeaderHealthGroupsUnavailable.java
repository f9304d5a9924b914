package dev.zklock.autoconfigure;

import org.jspecify.annotations.Nullable;

import dev.zklock.aop.InvalidLockDeclarationException;
import dev.zklock.leader.LeaderRoles;

/**
 * Fails startup when a role is to follow a health group but the application has no
 * health endpoint to read groups from: such a role would never move, whatever its
 * group said. Checks the property at once and each {@code @Leader} declaration as
 * its bean is created.
 */
final class LeaderHealthGroupsUnavailable {

	private static final String ACTION = "Add spring-boot-starter-actuator and keep the health endpoint available "
			+ "(management.endpoint.health.access is not none, and the endpoint is exposed, as it is by default)";

	LeaderHealthGroupsUnavailable(LeaderRoles roles, @Nullable String healthGroup) {
		if (healthGroup != null) {
			throw new InvalidZkLockPropertyException(ZkLockLeaderHealthAutoConfiguration.HEALTH_GROUP, healthGroup,
					"the application has no health endpoint to read health groups from", ACTION
							+ ", or remove the property.");
		}
		roles.subscribe((role) -> {
			LeaderRoles.HealthGroup declared = roles.healthGroup(role);
			if (declared != null) {
				throw new InvalidLockDeclarationException("@Leader(\"" + role + "\") on " + declared.declaredBy()
						+ " cannot work: it follows health group '" + declared.name() + "', but the application has "
						+ "no health endpoint to read health groups from. " + ACTION + ", or remove healthGroup.");
			}
		});
	}

}
