package dev.zklock.leader;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;

import dev.zklock.LeaderElection;
import dev.zklock.LeadershipGrantedEvent;
import dev.zklock.LeadershipRevocationReason;
import dev.zklock.LockContext;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.autoconfigure.ZkLockLeaderAutoConfiguration;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leadership of a role by two application contexts sharing one real ZooKeeper
 * server: startup joins, the first leads and the second stands by, skips and
 * knows who leads; yielding and closing hand the role over; an expired session
 * revokes it and the instance joins again at the back.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaderElectionTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final String basePath = "/leader-tests/" + UUID.randomUUID();

	private final ExecutorService runner = Executors.newSingleThreadExecutor();

	@AfterEach
	void stopRunner() {
		this.runner.shutdownNow();
	}

	private ApplicationContextRunner instance(String name) {
		return LeaderInstances.instance(this.basePath, name);
	}

	// the runner of a second instance, once the first leads
	private ApplicationContextRunner leading(ApplicationContext first) throws InterruptedException {
		assertThat(first.getBean(LeaderElection.class).awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
		return instance("app-b");
	}

	@Test
	void startupJoinsTheRoleAndTheLeaderRunsWithItsToken() {
		instance("app-a").run((context) -> {
			LeaderElection election = context.getBean(LeaderElection.class);
			assertThat(election.roles()).containsExactly(PollerJob.ROLE);
			assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			LeadershipRecorder events = context.getBean(LeadershipRecorder.class);
			assertThat(events.granted).singleElement().satisfies((event) -> {
				assertThat(event.getRole()).isEqualTo(PollerJob.ROLE);
				assertThat(event.getFencingToken()).isPositive();
			});
			long token = events.lastToken();
			assertThat(election.fencingToken(PollerJob.ROLE)).hasValueSatisfying((t) -> assertThat(t.value()).isEqualTo(token));
			PollerJob job = context.getBean(PollerJob.class);
			assertThat(job.poll(null)).contains(token);
			assertThat(job.runs()).singleElement().isEqualTo(new PollerJob.Run(token, token, true, false));
			assertThat(LockContext.find()).isEmpty();
			assertThat(election.currentLeader(PollerJob.ROLE)).hasValueSatisfying(
					(owner) -> assertThat(owner).contains("\"app\":\"app-a\""));
			CuratorFramework client = context.getBean(CuratorFramework.class);
			assertThat(TestZooKeeper.ephemeralNodes(client, this.basePath)).isOne();
		});
	}

	@Test
	void standByInstanceSkipsAndTakesOverOnYieldAndOnClose() {
		// B starts once A leads: which of two starting instances creates its node first is up to ZooKeeper
		instance("app-a").run((a) -> leading(a).run((b) -> {
			LeaderElection electionA = a.getBean(LeaderElection.class);
			LeaderElection electionB = b.getBean(LeaderElection.class);
			CuratorFramework client = a.getBean(CuratorFramework.class);
			await().atMost(WAIT).until(() -> TestZooKeeper.ephemeralNodes(client, this.basePath) == 2);
			assertThat(electionB.isLeader(PollerJob.ROLE)).isFalse();
			assertThat(b.getBean(PollerJob.class).poll(null)).isEmpty();
			assertThat(b.getBean(PollerJob.class).runs()).isEmpty();
			assertThat(electionB.currentLeader(PollerJob.ROLE)).hasValueSatisfying(
					(owner) -> assertThat(owner).contains("\"app\":\"app-a\""));
			LeadershipRecorder eventsA = a.getBean(LeadershipRecorder.class);
			LeadershipRecorder eventsB = b.getBean(LeadershipRecorder.class);
			long tokenA = eventsA.lastToken();

			assertThat(electionB.yieldLeadership(PollerJob.ROLE)).isFalse();
			assertThat(electionA.yieldLeadership(PollerJob.ROLE)).isTrue();
			assertThat(electionB.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			assertThat(electionA.isLeader(PollerJob.ROLE)).isFalse();
			assertThat(eventsA.revoked).singleElement().satisfies((event) -> {
				assertThat(event.getReason()).isEqualTo(LeadershipRevocationReason.YIELDED);
				assertThat(event.getFencingToken()).isEqualTo(tokenA);
			});
			long tokenB = eventsB.lastToken();
			assertThat(tokenB).isGreaterThan(tokenA);
			assertThat(electionA.currentLeader(PollerJob.ROLE)).hasValueSatisfying(
					(owner) -> assertThat(owner).contains("\"app\":\"app-b\""));
			// A joined again at the back, so it leads once B goes away
			await().atMost(WAIT).until(() -> TestZooKeeper.ephemeralNodes(client, this.basePath) == 2);

			long closing = System.nanoTime();
			b.close();
			assertThat(electionA.awaitLeadership(PollerJob.ROLE, Duration.ofSeconds(1))).isTrue();
			assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(2));
			assertThat(eventsB.revoked).singleElement().satisfies((event) -> {
				assertThat(event.getReason()).isEqualTo(LeadershipRevocationReason.SHUTDOWN);
				assertThat(event.getFencingToken()).isEqualTo(tokenB);
			});
			assertThat(eventsA.lastToken()).isGreaterThan(tokenB);
			assertThat(TestZooKeeper.ephemeralNodes(client, this.basePath)).isOne();
		}));
	}

	@Test
	void suspendedSessionRevokesTheRunningLeaderWhichJoinsAgain() {
		assertRevokedAndRejoined(instance("app-a"), LeadershipRevocationReason.CONNECTION_SUSPENDED);
	}

	@Test
	void underTheLostPolicyALostSessionRevokesTheLeader() {
		assertRevokedAndRejoined(LeaderInstances.lostPolicyInstance(this.basePath), LeadershipRevocationReason.CONNECTION_LOST);
	}

	private void assertRevokedAndRejoined(ApplicationContextRunner instance, LeadershipRevocationReason reason) {
		instance.withPropertyValues("zk-lock.interrupt-on-loss=true").run((context) -> {
			LeaderElection election = context.getBean(LeaderElection.class);
			assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			LeadershipRecorder events = context.getBean(LeadershipRecorder.class);
			long first = events.lastToken();
			PollerJob job = context.getBean(PollerJob.class);
			job.holdRuns();
			Future<?> run = this.runner.submit(() -> {
				job.pollSlowly();
				return null;
			});
			assertThat(job.started().await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			ZooKeeperSessions.expire(context.getBean(CuratorFramework.class));
			run.get(WAIT.toSeconds(), TimeUnit.SECONDS);
			assertThat(job.runs()).singleElement().isEqualTo(new PollerJob.Run(first, first, false, true));
			await().atMost(WAIT).until(() -> events.granted.size() == 2);
			assertThat(events.revoked).singleElement().satisfies((event) -> {
				assertThat(event.getFencingToken()).isEqualTo(first);
				assertThat(event.getReason()).isEqualTo(reason);
			});
			assertThat(events.lastToken()).isGreaterThan(first);
			assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			assertThat(job.poll(null)).contains(events.lastToken());
			assertThat(TestZooKeeper.ephemeralNodes(context.getBean(CuratorFramework.class), this.basePath)).isOne();
		});
	}

	@Test
	void closingAStandByLeavesTheQueueQuietly(CapturedOutput output) {
		instance("app-a").run((a) -> {
			ApplicationContextRunner standBy = leading(a);
			CuratorFramework client = a.getBean(CuratorFramework.class);
			standBy.run((b) -> {
				await().atMost(WAIT).until(() -> TestZooKeeper.ephemeralNodes(client, this.basePath) == 2);
				LeadershipRecorder events = b.getBean(LeadershipRecorder.class);
				b.close();
				assertThat(TestZooKeeper.ephemeralNodes(client, this.basePath)).isOne();
				assertThat(events.granted).isEmpty();
				assertThat(events.revoked).isEmpty();
			});
			assertThat(a.getBean(LeaderElection.class).isLeader(PollerJob.ROLE)).isTrue();
			assertThat(output).doesNotContain("Could not join the queue");
		});
	}

	@Test
	void eventsOfOneRoleAlternate() {
		instance("app-a").run((context) -> {
			LeaderElection election = context.getBean(LeaderElection.class);
			LeadershipRecorder events = context.getBean(LeadershipRecorder.class);
			for (int i = 0; i < 5; i++) {
				assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
				assertThat(election.yieldLeadership(PollerJob.ROLE)).isTrue();
			}
			assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			assertThat(events.granted).hasSize(6);
			assertThat(events.revoked).hasSize(5);
			assertThat(events.granted).extracting(LeadershipGrantedEvent::getFencingToken).isSorted()
				.doesNotHaveDuplicates();
			for (int i = 0; i < 5; i++) {
				assertThat(events.revoked.get(i).getFencingToken()).isEqualTo(events.granted.get(i).getFencingToken());
			}
			assertThat(TestZooKeeper.ephemeralNodes(context.getBean(CuratorFramework.class), this.basePath)).isOne();
		});
	}

	@Test
	void disabledInstanceNeverLeadsButKnowsTheLeader() {
		instance("app-a").run((a) -> leading(a).withPropertyValues("zk-lock.leader.enabled=false").run((b) -> {
			LeaderElection electionB = b.getBean(LeaderElection.class);
			assertThat(electionB.awaitLeadership(PollerJob.ROLE, Duration.ofMillis(300))).isFalse();
			assertThat(b.getBean(PollerJob.class).poll(null)).isEmpty();
			assertThat(electionB.currentLeader(PollerJob.ROLE)).hasValueSatisfying(
					(owner) -> assertThat(owner).contains("\"app\":\"app-a\""));
			assertThat(TestZooKeeper.ephemeralNodes(a.getBean(CuratorFramework.class), this.basePath)).isOne();
			a.close();
			assertThat(electionB.currentLeader(PollerJob.ROLE)).isEmpty();
			assertThat(electionB.isLeader(PollerJob.ROLE)).isFalse();
		}));
	}

	@Test
	void rolesFromPropertiesAreJoinedAtStartup() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZkLockLeaderAutoConfiguration.class))
			.run((empty) -> assertThat(empty).doesNotHaveBean(LeaderElection.class));
		instance("app-a").withPropertyValues("zk-lock.leader.roles=reports,billing").run((context) -> {
			LeaderElection election = context.getBean(LeaderElection.class);
			assertThat(election.roles()).containsExactly("billing", PollerJob.ROLE, "reports");
			for (String role : election.roles()) {
				assertThat(election.awaitLeadership(role, WAIT)).as(role).isTrue();
			}
			assertThat(context.getBean(LeadershipRecorder.class).granted).hasSize(3);
		});
	}

}
