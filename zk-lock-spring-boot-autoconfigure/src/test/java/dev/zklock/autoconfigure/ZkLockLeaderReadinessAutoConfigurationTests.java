package dev.zklock.autoconfigure;

import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.aop.TestZooKeeper;
import dev.zklock.leader.CuratorLeaderElection;
import dev.zklock.leader.LeadershipReadiness;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When leadership follows readiness: by default where Spring Boot's
 * {@code ApplicationAvailability} is present, never without it, and not when turned
 * off; asked for without it, startup fails.
 */
class ZkLockLeaderReadinessAutoConfigurationTests {

	private final ApplicationContextRunner withoutAvailability = TestZooKeeper.contextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockLeaderAutoConfiguration.class,
				ZkLockLeaderReadinessAutoConfiguration.class))
		.withPropertyValues("zk-lock.leader.roles=reports");

	private final ApplicationContextRunner contextRunner = this.withoutAvailability
		.withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class));

	@Test
	void followsReadinessWhereApplicationAvailabilityIsPresent() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LeadershipReadiness.class);
			// not ready yet: the roles wait
			assertThat(context.getBean(CuratorLeaderElection.class).standingAside())
				.containsEntry("reports", Set.of(LeadershipReadiness.CAUSE));
		});
	}

	@Test
	void doesNotFollowReadinessWithoutApplicationAvailability() {
		this.withoutAvailability.run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(LeadershipReadiness.class);
			assertThat(context.getBean(CuratorLeaderElection.class).standingAside()).isEmpty();
		});
	}

	@Test
	void turnedOffWithAProperty() {
		this.contextRunner.withPropertyValues("zk-lock.leadership.follow-readiness=false").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(LeadershipReadiness.class);
			assertThat(context.getBean(CuratorLeaderElection.class).standingAside()).isEmpty();
		});
	}

	@Test
	void askedForWithoutApplicationAvailabilityStartupFails() {
		this.withoutAvailability.withPropertyValues("zk-lock.leadership.follow-readiness=true").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidZkLockPropertyException.class)
				.hasMessageContaining("zk-lock.leadership.follow-readiness")
				.hasMessageContaining("no ApplicationAvailability bean");
		});
	}

}
