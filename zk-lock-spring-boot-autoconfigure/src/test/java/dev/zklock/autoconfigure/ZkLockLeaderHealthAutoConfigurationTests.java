package dev.zklock.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.annotation.Leader;
import dev.zklock.aop.InvalidLockDeclarationException;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.leader.LeadershipHealth;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When leadership follows health groups, and the declarations that stop startup: a
 * group that does not exist, a group without a health endpoint to read it, two
 * groups for one role, a bad name, a negative yield-after.
 */
class ZkLockLeaderHealthAutoConfigurationTests {

	private final ApplicationContextRunner withoutHealthEndpoint = TestZooKeeper.contextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockLeaderAutoConfiguration.class,
				ZkLockLeaderHealthAutoConfiguration.class))
		.withPropertyValues("zk-lock.leader.roles=reports");

	private final ApplicationContextRunner contextRunner = this.withoutHealthEndpoint
		.withConfiguration(AutoConfigurations.of(HealthContributorAutoConfiguration.class,
				HealthContributorRegistryAutoConfiguration.class, EndpointAutoConfiguration.class,
				HealthEndpointAutoConfiguration.class, ZkLockHealthContributorAutoConfiguration.class))
		.withPropertyValues("management.endpoint.health.group.zookeeper.include=zkLock");

	@Test
	void rolesFollowTheGroupOfTheirDeclarationElseTheProperty() {
		this.contextRunner
			.withPropertyValues("zk-lock.leadership.health-group=zookeeper",
					"management.endpoint.health.group.billing.include=zkLock")
			.withBean(Billing.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(LeadershipHealth.class);
				LeadershipHealth health = context.getBean(LeadershipHealth.class);
				assertThat(health.groupOf("billing")).isEqualTo("billing");
				assertThat(health.groupOf("reports")).isEqualTo("zookeeper");
			});
	}

	@Test
	void withAHealthEndpointButNoGroupNamedRolesFollowNone() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(LeadershipHealth.class);
			assertThat(context.getBean(LeadershipHealth.class).groupOf("reports")).isNull();
		});
	}

	@Test
	void withoutAHealthEndpointNothingFailsUntilAGroupIsNamed() {
		this.withoutHealthEndpoint.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(LeadershipHealth.class)
			.hasSingleBean(LeaderHealthGroupsUnavailable.class));
	}

	@Test
	void aGroupPropertyThatNamesNoGroupFails() {
		assertFails(this.contextRunner.withPropertyValues("zk-lock.leadership.health-group=billing"),
				InvalidZkLockPropertyException.class, "zk-lock.leadership.health-group",
				"there is no health group of that name; the groups are [zookeeper]");
	}

	@Test
	void aDeclarationThatNamesNoGroupFails() {
		assertFails(this.contextRunner.withBean(Billing.class), InvalidLockDeclarationException.class,
				Billing.class.getName() + ".run()", "health group 'billing', which does not exist");
	}

	@Test
	void aGroupPropertyWithoutAHealthEndpointFails() {
		assertFails(this.withoutHealthEndpoint.withPropertyValues("zk-lock.leadership.health-group=zookeeper"),
				InvalidZkLockPropertyException.class, "zk-lock.leadership.health-group", "no health endpoint");
	}

	@Test
	void aDeclaredGroupWithoutAHealthEndpointFails() {
		assertFails(this.withoutHealthEndpoint.withBean(Billing.class), InvalidLockDeclarationException.class,
				Billing.class.getName() + ".run()", "no health endpoint");
	}

	@Test
	void twoGroupsForOneRoleFail() {
		assertFails(this.contextRunner.withPropertyValues("management.endpoint.health.group.billing.include=zkLock")
			.withBean(Billing.class)
			.withBean(OtherBilling.class), InvalidLockDeclarationException.class, "a role follows one group");
	}

	@Test
	void aGroupNameWithWhiteSpaceFails() {
		assertFails(this.contextRunner.withBean(BadGroupName.class), InvalidLockDeclarationException.class,
				"is not the name of a health group");
	}

	@Test
	void aNegativeYieldAfterFails() {
		assertFails(this.contextRunner.withPropertyValues("zk-lock.leadership.yield-after=-1s"),
				InvalidZkLockPropertyException.class, "zk-lock.leadership.yield-after", "must not be negative");
	}

	private static void assertFails(ApplicationContextRunner runner, Class<? extends Throwable> type,
			String... messages) {
		runner.run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(type)
				.satisfies((failure) -> assertThat(failure.getMessage()).contains(messages));
		});
	}

	static class Billing {

		@Leader(value = "billing", healthGroup = "billing")
		public void run() {
		}

	}

	static class OtherBilling {

		@Leader(value = "billing", healthGroup = "zookeeper")
		public void other() {
		}

	}

	static class BadGroupName {

		@Leader(value = "billing", healthGroup = "billing db")
		public void run() {
		}

	}

}
