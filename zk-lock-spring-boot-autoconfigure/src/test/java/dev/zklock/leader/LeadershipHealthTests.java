package dev.zklock.leader;

import java.time.Duration;
import java.util.UUID;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import dev.zklock.LeaderElection;
import dev.zklock.LeadershipRevocationReason;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.autoconfigure.ZkLockHealthContributorAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockLeaderHealthAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockLeaderMonitoringAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leadership that follows health groups, with two application contexts on one real
 * ZooKeeper server and a yield-after of 1 s. Role {@value BillingJob#ROLE} follows
 * group {@value BillingJob#HEALTH_GROUP} (its {@code @Leader} names it); role
 * {@value PollerJob#ROLE} follows the default group, {@code zookeeper}, which stays
 * UP.
 */
class LeadershipHealthTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static final Duration YIELD_AFTER = Duration.ofSeconds(1);

	private final String basePath = "/leader-health/" + UUID.randomUUID();

	private ApplicationContextRunner instance(String name) {
		return LeaderInstances.instance(this.basePath, name)
			.withConfiguration(AutoConfigurations.of(HealthContributorAutoConfiguration.class,
					HealthContributorRegistryAutoConfiguration.class, EndpointAutoConfiguration.class,
					HealthEndpointAutoConfiguration.class, ZkLockHealthContributorAutoConfiguration.class,
					ZkLockLeaderMonitoringAutoConfiguration.class, ZkLockLeaderHealthAutoConfiguration.class))
			.withBean("jobStore", SwitchableHealth.class, SwitchableHealth::new)
			.withBean(BillingJob.class)
			.withPropertyValues("management.endpoint.health.group.jobs.include=jobStore",
					"management.endpoint.health.group.zookeeper.include=zkLock",
					"zk-lock.leadership.health-group=zookeeper", "zk-lock.leadership.yield-after=" + YIELD_AFTER.toMillis() + "ms");
	}

	@Test
	void aRoleMovesOnlyWhenItsGroupStaysDownForTheYieldAfterAndJoinsAgainWhenUp() {
		instance("app-a").run((a) -> {
			LeaderElection electionA = a.getBean(LeaderElection.class);
			assertThat(electionA.awaitLeadership(BillingJob.ROLE, WAIT)).isTrue();
			assertThat(electionA.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			instance("app-b").run((b) -> {
				LeaderElection electionB = b.getBean(LeaderElection.class);
				await().atMost(WAIT).until(() -> TestZooKeeper.ephemeralNodes(client(a), this.basePath) == 4);
				SwitchableHealth storeA = a.getBean("jobStore", SwitchableHealth.class);
				// a spell shorter than the yield-after moves nothing, and the next one counts from zero
				storeA.set(Status.DOWN);
				await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> electionA.isLeader(BillingJob.ROLE));
				storeA.set(Status.UP);
				await().during(YIELD_AFTER.plusMillis(500)).atMost(WAIT)
					.until(() -> electionA.isLeader(BillingJob.ROLE));

				long downAt = System.nanoTime();
				storeA.set(Status.DOWN);
				assertThat(electionB.awaitLeadership(BillingJob.ROLE, WAIT)).isTrue();
				Duration moved = Duration.ofNanos(System.nanoTime() - downAt);
				assertThat(moved).isBetween(YIELD_AFTER, YIELD_AFTER.plusSeconds(2));
				assertThat(a.getBean(LeadershipRecorder.class).revoked).singleElement().satisfies((event) -> {
					assertThat(event.getRole()).isEqualTo(BillingJob.ROLE);
					assertThat(event.getReason()).isEqualTo(LeadershipRevocationReason.YIELDED);
				});
				// the role of the other group stays
				assertThat(electionA.isLeader(PollerJob.ROLE)).isTrue();
				assertThat(status(a, BillingJob.HEALTH_GROUP)).isEqualTo(Status.DOWN);
				// zk-lock's own health is UP whether or not this instance leads
				assertThat(status(a, "zkLockLeadership")).isEqualTo(Status.UP);
				assertThat(status(a, "zkLock")).isEqualTo(Status.UP);
				assertThat(status(b, "zkLockLeadership")).isEqualTo(Status.UP);
				// out of the queue while the group is down
				assertThat(TestZooKeeper.ephemeralNodes(client(a), this.basePath)).isEqualTo(3);

				storeA.set(Status.UP);
				await().atMost(WAIT).until(() -> TestZooKeeper.ephemeralNodes(client(a), this.basePath) == 4);
				assertThat(electionB.isLeader(BillingJob.ROLE)).isTrue();
				assertThat(electionA.isLeader(BillingJob.ROLE)).isFalse();
				System.err.printf("leadership health: role moved %d ms after its group went DOWN (yield-after %d ms)%n",
						moved.toMillis(), YIELD_AFTER.toMillis());
			});
		});
	}

	private static Status status(ApplicationContext context, String path) {
		return context.getBean(HealthEndpoint.class).healthForPath(path).getStatus();
	}

	private static CuratorFramework client(ApplicationContext context) {
		return context.getBean(CuratorFramework.class);
	}

}
