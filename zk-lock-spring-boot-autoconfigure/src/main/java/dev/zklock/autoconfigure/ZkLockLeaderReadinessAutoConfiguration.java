package dev.zklock.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Lazy;

import dev.zklock.leader.CuratorLeaderElection;
import dev.zklock.leader.LeadershipReadiness;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for leadership that follows the application's readiness:
 * where Spring Boot's {@link ApplicationAvailability} is present, roles are
 * competed for only while readiness is {@code ACCEPTING_TRAFFIC}. Turned off with
 * {@code zk-lock.leadership.follow-readiness=false}; set to {@code true} where there is
 * no {@code ApplicationAvailability}, it fails startup, as the instance would never
 * lead.
 */
@AutoConfiguration(after = ZkLockLeaderAutoConfiguration.class,
		afterName = "org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration")
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnBean(CuratorLeaderElection.class)
public final class ZkLockLeaderReadinessAutoConfiguration {

	private static final String FOLLOW_READINESS = "zk-lock.leadership.follow-readiness";

	// created with the context even under lazy initialization: the election starts before the first event
	@Bean
	@Lazy(false)
	@ConditionalOnMissingBean
	@ConditionalOnBean(ApplicationAvailability.class)
	@ConditionalOnBooleanProperty(name = FOLLOW_READINESS, matchIfMissing = true)
	LeadershipReadiness zkLeadershipReadiness(CuratorLeaderElection election, ApplicationAvailability availability) {
		return new LeadershipReadiness(election, availability);
	}

	// set explicitly where readiness is never known: fail rather than never lead
	@Bean
	@ConditionalOnMissingBean(ApplicationAvailability.class)
	@ConditionalOnBooleanProperty(FOLLOW_READINESS)
	LeadershipReadiness zkLeadershipReadinessWithoutAvailability() {
		throw new InvalidZkLockPropertyException(FOLLOW_READINESS, "true",
				"the application has no ApplicationAvailability bean, so its readiness is never known and this "
						+ "instance would never lead",
				"Let Spring Boot's ApplicationAvailabilityAutoConfiguration run (@SpringBootApplication does), define "
						+ "an ApplicationAvailability bean, or remove the property.");
	}

}
