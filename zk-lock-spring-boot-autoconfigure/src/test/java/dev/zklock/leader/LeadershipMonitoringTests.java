package dev.zklock.leader;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import dev.zklock.LeaderElection;
import dev.zklock.actuate.LeadersEndpoint;
import dev.zklock.actuate.LeadersEndpoint.RoleDescriptor;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.autoconfigure.ZkLockLeaderAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockLeaderMonitoringAutoConfiguration;
import dev.zklock.health.LeadershipHealthIndicator;
import dev.zklock.metrics.LeadershipMetrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code leaders} endpoint, the health details and the meters follow each
 * change of leadership between two application contexts on one real ZooKeeper
 * server: the start, a yield and a shutdown.
 */
class LeadershipMonitoringTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final String basePath = "/leader-monitoring/" + UUID.randomUUID();

	private ApplicationContextRunner instance(String name) {
		return TestZooKeeper.contextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockLeaderAutoConfiguration.class,
					ZkLockLeaderMonitoringAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(PollerJob.class)
			.withPropertyValues("zk-lock.base-path=" + this.basePath, "spring.application.name=" + name,
					"zk-lock.leader.roles=reports", "management.endpoints.web.exposure.include=leaders");
	}

	@Test
	void endpointHealthAndMetersFollowEveryChange() {
		instance("app-a").run((a) -> {
			LeaderElection electionA = a.getBean(LeaderElection.class);
			assertThat(electionA.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			assertThat(electionA.awaitLeadership("reports", WAIT)).isTrue();
			instance("app-b").withPropertyValues("zk-lock.leader.roles=").run((b) -> {
				LeaderElection electionB = b.getBean(LeaderElection.class);
				await().atMost(WAIT).until(() -> role(a, PollerJob.ROLE).candidates().size() == 1);
				RoleDescriptor poller = role(b, PollerJob.ROLE);
				assertThat(poller.member()).isTrue();
				assertThat(poller.leading()).isFalse();
				assertThat(poller.leader()).isNotNull();
				assertThat(poller.leader().owner()).contains("\"app\":\"app-a\"");
				assertThat(poller.leader().fencingToken()).isEqualTo(electionA.fencingToken(PollerJob.ROLE)
					.orElseThrow()
					.value());
				assertThat(poller.leader().since()).isAfterOrEqualTo(poller.leader().joined());
				assertThat(poller.candidates()).singleElement()
					.satisfies((candidate) -> assertThat(candidate.owner()).contains("\"app\":\"app-b\""));
				RoleDescriptor reports = role(b, "reports");
				assertThat(reports.member()).isFalse();
				assertThat(reports.leader().owner()).contains("\"app\":\"app-a\"");
				assertThat(b.getBean(LeadersEndpoint.class).role("nobody")).isNull();
				assertThat(role(a, PollerJob.ROLE).leading()).isTrue();
				assertHealth(a, List.of(PollerJob.ROLE, "reports"));
				assertHealth(b, List.of());
				assertMeters(a, 1, 1, 0);
				assertMeters(b, 0, 0, 0);

				long sinceBefore = poller.leader().since().toEpochMilli();
				assertThat(electionA.yieldLeadership(PollerJob.ROLE)).isTrue();
				assertThat(electionB.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
				await().atMost(WAIT).until(() -> role(a, PollerJob.ROLE).leader().owner().contains("app-b"));
				RoleDescriptor moved = role(a, PollerJob.ROLE);
				assertThat(moved.leading()).isFalse();
				assertThat(moved.leader().since().toEpochMilli()).isGreaterThanOrEqualTo(sinceBefore);
				assertThat(moved.candidates()).singleElement()
					.satisfies((candidate) -> assertThat(candidate.owner()).contains("\"app\":\"app-a\""));
				assertHealth(a, List.of("reports"));
				assertHealth(b, List.of(PollerJob.ROLE));
				assertMeters(a, 0, 1, 1);
				assertMeters(b, 1, 1, 0);

				b.close();
				assertThat(electionA.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
				assertMeters(a, 1, 2, 1);
				assertThat(role(a, PollerJob.ROLE).candidates()).isEmpty();
			});
		});
	}

	private static RoleDescriptor role(ApplicationContext context, String role) {
		RoleDescriptor descriptor = context.getBean(LeadersEndpoint.class).role(role);
		assertThat(descriptor).as(role).isNotNull();
		return descriptor;
	}

	private static void assertHealth(ApplicationContext context, List<String> leading) {
		Health health = context.getBean(LeadershipHealthIndicator.class).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		Map<String, Object> details = health.getDetails();
		assertThat(details).containsEntry("leading", leading);
	}

	private static void assertMeters(ApplicationContext context, double leader, double granted, double revoked) {
		MeterRegistry meters = context.getBean(MeterRegistry.class);
		assertThat(meters.get(LeadershipMetrics.LEADER).tag("role", PollerJob.ROLE).gauge().value()).isEqualTo(leader);
		assertThat(count(meters, "granted")).as("granted").isEqualTo(granted);
		assertThat(count(meters, "revoked")).as("revoked").isEqualTo(revoked);
	}

	private static double count(MeterRegistry meters, String change) {
		var counter = meters.find(LeadershipMetrics.CHANGES).tags("role", PollerJob.ROLE, "change", change).counter();
		return (counter != null) ? counter.count() : 0;
	}

}
