package dev.zklock.autoconfigure;

import java.time.Duration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.zklock.leader.CuratorLeaderElection;
import dev.zklock.leader.LeaderRoles;
import dev.zklock.leader.LeadershipHealth;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for leadership that follows health groups
 * ({@code zk-lock.leadership.health-group}, {@code @Leader(healthGroup = ...)}), read
 * through Spring Boot's {@link HealthEndpoint}. Without that endpoint, a role that
 * follows a group fails startup.
 */
@AutoConfiguration(after = ZkLockLeaderAutoConfiguration.class,
		afterName = "org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration")
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnBean(CuratorLeaderElection.class)
@EnableConfigurationProperties(ZkLockLeadershipProperties.class)
public final class ZkLockLeaderHealthAutoConfiguration {

	static final String HEALTH_GROUP = "zk-lock.leadership.health-group";

	private static final String YIELD_AFTER = "zk-lock.leadership.yield-after";

	private static final String HEALTH_ENDPOINT = "org.springframework.boot.health.actuate.endpoint.HealthEndpoint";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(HealthEndpoint.class)
	@ConditionalOnBean(HealthEndpoint.class)
	static final class HealthGroupConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LeadershipHealth zkLeadershipHealth(CuratorLeaderElection election, LeaderRoles roles, HealthEndpoint endpoint,
				HealthEndpointGroups groups, ZkLockLeadershipProperties properties) {
			String group = properties.getHealthGroup();
			if (group != null && groups.get(group) == null) {
				throw new InvalidZkLockPropertyException(HEALTH_GROUP, group,
						"there is no health group of that name; the groups are " + groups.getNames(),
						"Define it with management.endpoint.health.group." + group + ".include, or name an "
								+ "existing group.");
			}
			return new LeadershipHealth(election, roles, endpoint, groups, group, yieldAfter(properties));
		}

		private static Duration yieldAfter(ZkLockLeadershipProperties properties) {
			Duration yieldAfter = properties.getYieldAfter();
			if (yieldAfter == null || yieldAfter.isNegative()) {
				throw new InvalidZkLockPropertyException(YIELD_AFTER, ZkLockPropertiesValidator.format(yieldAfter),
						"it must not be negative",
						"Set '" + YIELD_AFTER + "' to a duration such as 10s: how long a health group may be down "
								+ "before the roles that follow it move.");
			}
			return yieldAfter;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(type = HEALTH_ENDPOINT)
	static final class NoHealthEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LeaderHealthGroupsUnavailable zkLeaderHealthGroupsUnavailable(LeaderRoles roles,
				ZkLockLeadershipProperties properties) {
			return new LeaderHealthGroupsUnavailable(roles, properties.getHealthGroup());
		}

	}

}
