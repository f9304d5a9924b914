package dev.zklock.leader;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import dev.zklock.LeaderElection;
import dev.zklock.LeadershipRevocationReason;
import dev.zklock.LockContext;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.autoconfigure.ZkLockLeaderReadinessAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leadership that follows readiness, with two application contexts on one real
 * ZooKeeper server. A context runner never reports the application ready, as
 * {@code SpringApplication} does once started, so each test publishes readiness
 * itself.
 */
class LeadershipReadinessTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final String basePath = "/leader-readiness/" + UUID.randomUUID();

	private final ExecutorService runner = Executors.newSingleThreadExecutor();

	@AfterEach
	void stopRunner() {
		this.runner.shutdownNow();
	}

	private ApplicationContextRunner instance(String name) {
		return LeaderInstances.instance(this.basePath, name)
			.withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class,
					ZkLockLeaderReadinessAutoConfiguration.class));
	}

	@Test
	void joinsOnceReadyYieldsAfterTheRunningMethodWhenRefusingTrafficAndJoinsAgainAtTheBack() {
		instance("app-a").run((a) -> {
			LeaderElection electionA = a.getBean(LeaderElection.class);
			assertThat(electionA.awaitLeadership(PollerJob.ROLE, Duration.ofMillis(500))).isFalse();
			assertThat(TestZooKeeper.ephemeralNodes(client(a), this.basePath)).isZero();
			AvailabilityChangeEvent.publish(a, ReadinessState.ACCEPTING_TRAFFIC);
			assertThat(electionA.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			instance("app-b").run((b) -> {
				LeaderElection electionB = b.getBean(LeaderElection.class);
				AvailabilityChangeEvent.publish(b, ReadinessState.ACCEPTING_TRAFFIC);
				await().atMost(WAIT).until(() -> TestZooKeeper.ephemeralNodes(client(a), this.basePath) == 2);
				PollerJob job = a.getBean(PollerJob.class);
				CountDownLatch release = job.holdRuns();
				Future<?> run = this.runner.submit(() -> {
					job.pollSlowly();
					return null;
				});
				assertThat(job.started().await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
				LeadershipRecorder eventsA = a.getBean(LeadershipRecorder.class);
				long token = eventsA.lastToken();

				AvailabilityChangeEvent.publish(a, ReadinessState.REFUSING_TRAFFIC);
				// told at once: the revocation, and isHeld() false in the running method
				assertThat(eventsA.revoked).singleElement().satisfies((event) -> {
					assertThat(event.getReason()).isEqualTo(LeadershipRevocationReason.YIELDED);
					assertThat(event.getFencingToken()).isEqualTo(token);
				});
				LockContext running = job.running();
				assertThat(running).isNotNull();
				assertThat(running.isHeld()).isFalse();
				assertThat(electionA.isLeader(PollerJob.ROLE)).isFalse();
				assertThat(job.poll(null)).isEmpty();
				// the node stays while the method runs, so the next leader cannot overlap it
				await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> !electionB.isLeader(PollerJob.ROLE));
				release.countDown();
				run.get(WAIT.toSeconds(), TimeUnit.SECONDS);
				assertThat(electionB.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
				assertThat(job.runs()).singleElement().isEqualTo(new PollerJob.Run(token, token, false, false));
				assertThat(b.getBean(LeadershipRecorder.class).lastToken()).isGreaterThan(token);
				assertThat(TestZooKeeper.ephemeralNodes(client(a), this.basePath)).isOne();

				AvailabilityChangeEvent.publish(a, ReadinessState.ACCEPTING_TRAFFIC);
				await().atMost(WAIT).until(() -> TestZooKeeper.ephemeralNodes(client(a), this.basePath) == 2);
				assertThat(electionB.isLeader(PollerJob.ROLE)).isTrue();
				assertThat(electionA.isLeader(PollerJob.ROLE)).isFalse();
				assertThat(eventsA.granted).hasSize(1);
				b.close();
				// A was queued behind B
				assertThat(electionA.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			});
		});
	}

	// the unsafe control: without the feature the application's readiness moves nothing
	@Test
	void withFollowReadinessOffTheInstanceLeadsWhileRefusingTraffic() {
		instance("app-a").withPropertyValues("zk-lock.leadership.follow-readiness=false").run((a) -> {
			assertThat(a).doesNotHaveBean(LeadershipReadiness.class);
			LeaderElection election = a.getBean(LeaderElection.class);
			assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			AvailabilityChangeEvent.publish(a, ReadinessState.REFUSING_TRAFFIC);
			await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> election.isLeader(PollerJob.ROLE));
			assertThat(a.getBean(LeadershipRecorder.class).revoked).isEmpty();
		});
	}

	private static CuratorFramework client(ApplicationContext context) {
		return context.getBean(CuratorFramework.class);
	}

}
