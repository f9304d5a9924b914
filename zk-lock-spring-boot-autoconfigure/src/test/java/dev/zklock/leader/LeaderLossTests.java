package dev.zklock.leader;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import dev.zklock.FencingToken;
import dev.zklock.LeaderElection;
import dev.zklock.LeadershipRevocationReason;
import dev.zklock.LockContext;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.core.LeadershipTerm;
import dev.zklock.core.ManualPauseDetectors;
import dev.zklock.core.PauseDetector;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How a leader loses its role on one real ZooKeeper server, beyond yields and
 * shutdowns: another client deletes its node, its session ends (under each loss
 * policy), or this process pauses. Each time the revocation carries the reason the
 * docs give, and the instance joins again and leads with a larger token.
 */
class LeaderLossTests {

	private static final Logger logger = LoggerFactory.getLogger(LeaderLossTests.class);

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final String basePath = "/leader-loss-tests/" + UUID.randomUUID();

	private final ExecutorService runner = Executors.newSingleThreadExecutor();

	@AfterEach
	void stopRunner() {
		this.runner.shutdownNow();
	}

	private ApplicationContextRunner lostPolicyInstance() {
		return LeaderInstances.lostPolicyInstance(this.basePath);
	}

	private ApplicationContextRunner instance(String name) {
		return LeaderInstances.instance(this.basePath, name);
	}

	@Test
	void anotherClientDeletingTheLeadersNodeRevokesItAndTheNextCandidateLeads() {
		instance("app-a").run((a) -> {
			LeaderElection electionA = a.getBean(LeaderElection.class);
			assertThat(electionA.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			instance("app-b").run((b) -> {
				CuratorFramework client = a.getBean(CuratorFramework.class);
				await().atMost(WAIT).until(() -> TestZooKeeper.ephemeralNodes(client, this.basePath) == 2);
				LeaderElection electionB = b.getBean(LeaderElection.class);
				LeadershipRecorder eventsA = a.getBean(LeadershipRecorder.class);
				LeadershipRecorder eventsB = b.getBean(LeadershipRecorder.class);
				long tokenA = eventsA.lastToken();
				String nodeA = leaderNode(a);
				assertThat(electionB.isLeader(PollerJob.ROLE)).isFalse();

				CuratorFramework operator = TestZooKeeper.newClient();
				long deleting;
				try {
					deleting = System.nanoTime();
					operator.delete().forPath(nodeA);
				}
				finally {
					operator.close();
				}
				assertThat(electionB.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
				await().atMost(WAIT).until(() -> eventsA.revoked.size() == 1);
				logger.info("Leader node deleted by another client: revoked on the old leader and led by the next "
						+ "candidate within {} ms", Duration.ofNanos(System.nanoTime() - deleting).toMillis());
				assertThat(eventsA.revoked).singleElement().satisfies((event) -> {
					assertThat(event.getReason()).isEqualTo(LeadershipRevocationReason.NODE_DELETED);
					assertThat(event.getFencingToken()).isEqualTo(tokenA);
				});
				assertThat(electionA.isLeader(PollerJob.ROLE)).isFalse();
				assertThat(a.getBean(PollerJob.class).poll(null)).isEmpty();
				long tokenB = eventsB.lastToken();
				assertThat(tokenB).isGreaterThan(tokenA);
				// A joined again, at the back, and leads once B goes away
				await().atMost(WAIT).until(() -> TestZooKeeper.ephemeralNodes(client, this.basePath) == 2);
				assertThat(electionA.currentLeader(PollerJob.ROLE)).hasValueSatisfying(
						(owner) -> assertThat(owner).contains("\"app\":\"app-b\""));
				b.close();
				assertThat(electionA.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
				assertThat(eventsA.lastToken()).isGreaterThan(tokenB);
				assertThat(eventsA.granted).hasSize(2);
				assertThat(TestZooKeeper.ephemeralNodes(client, this.basePath)).isOne();
			});
		});
	}

	@Test
	void aLoneLeaderWhoseNodeIsDeletedLeadsAgainWithALargerToken() {
		instance("app-a").run((context) -> {
			LeaderElection election = context.getBean(LeaderElection.class);
			assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			LeadershipRecorder events = context.getBean(LeadershipRecorder.class);
			long first = events.lastToken();
			context.getBean(CuratorFramework.class).delete().forPath(leaderNode(context));
			await().atMost(WAIT).until(() -> events.granted.size() == 2);
			assertThat(events.revoked).singleElement().satisfies((event) -> {
				assertThat(event.getReason()).isEqualTo(LeadershipRevocationReason.NODE_DELETED);
				assertThat(event.getFencingToken()).isEqualTo(first);
			});
			assertThat(events.lastToken()).isGreaterThan(first);
			assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			assertThat(context.getBean(PollerJob.class).poll(null)).contains(events.lastToken());
			assertThat(TestZooKeeper.ephemeralNodes(context.getBean(CuratorFramework.class), this.basePath)).isOne();
		});
	}

	@Test
	void underTheSuspendedPolicyAnExpiredSessionIsConnectionSuspendedAndANewSessionLeads() {
		assertExpiredSessionRevokes(instance("app-a"), LeadershipRevocationReason.CONNECTION_SUSPENDED);
	}

	@Test
	void underTheLostPolicyAnExpiredSessionIsConnectionLostAndANewSessionLeads() {
		assertExpiredSessionRevokes(lostPolicyInstance(), LeadershipRevocationReason.CONNECTION_LOST);
	}

	private void assertExpiredSessionRevokes(ApplicationContextRunner instance, LeadershipRevocationReason reason) {
		instance.run((context) -> {
			LeaderElection election = context.getBean(LeaderElection.class);
			assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			LeadershipRecorder events = context.getBean(LeadershipRecorder.class);
			CuratorFramework client = context.getBean(CuratorFramework.class);
			long first = events.lastToken();
			long expired = ZooKeeperSessions.expire(client);
			await().atMost(WAIT).until(() -> events.granted.size() == 2);
			assertThat(events.revoked).singleElement().satisfies((event) -> {
				assertThat(event.getReason()).isEqualTo(reason);
				assertThat(event.getFencingToken()).isEqualTo(first);
			});
			assertThat(ZooKeeperSessions.sessionId(client)).isNotZero().isNotEqualTo(expired);
			assertThat(events.lastToken()).isGreaterThan(first);
			assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			assertThat(client.checkExists().forPath(leaderNode(context)).getEphemeralOwner())
				.isEqualTo(ZooKeeperSessions.sessionId(client));
			assertThat(TestZooKeeper.ephemeralNodes(client, this.basePath)).isOne();
		});
	}

	@Test
	void aPauseEndsTheLeadershipAtOnceUntilZooKeeperConfirmsIt() {
		AtomicLong clock = new AtomicLong();
		PauseDetector detector = ManualPauseDetectors.onClock(clock::get, Duration.ofSeconds(1));
		instance("app-a").withBean(PauseDetector.class, () -> detector).run((context) -> {
			LeaderElection election = context.getBean(LeaderElection.class);
			assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			LeadershipRecorder events = context.getBean(LeadershipRecorder.class);
			long token = events.lastToken();
			PollerJob job = context.getBean(PollerJob.class);
			SlowRun run = startSlowRun(job);
			LockContext running = job.running();
			assertThat(running).isNotNull();
			// control: before the pause both see the leadership
			assertThat(election.isLeader(PollerJob.ROLE)).isTrue();
			assertThat(running.isHeld()).isTrue();

			// frozen for longer than the safe silence: the ticker has not run since
			clock.addAndGet(TimeUnit.SECONDS.toNanos(15));
			assertThat(election.isLeader(PollerJob.ROLE)).isFalse();
			assertThat(running.isHeld()).isFalse();
			assertThat(election.fencingToken(PollerJob.ROLE)).isEmpty();
			assertThat(job.poll(null)).isEmpty();
			assertThat(events.revoked).isEmpty();

			// running again: one round trip confirms the node, and the same leadership goes on
			long resumed = System.nanoTime();
			ManualPauseDetectors.tick(detector);
			assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			logger.info("Leadership confirmed {} ms after the pause ended", Duration.ofNanos(System.nanoTime() - resumed)
				.toMillis());
			assertThat(running.isHeld()).isTrue();
			assertThat(events.revoked).isEmpty();
			assertThat(events.granted).hasSize(1);
			run.finish();
			assertThat(job.runs()).singleElement().isEqualTo(new PollerJob.Run(token, token, true, false));
		});
	}

	@Test
	void aPauseThatCostTheSessionReportsNoLeadershipBeforeTheRevocationArrives() {
		AtomicLong clock = new AtomicLong();
		PauseDetector detector = ManualPauseDetectors.onClock(clock::get, Duration.ofSeconds(1));
		instance("app-a").withBean(PauseDetector.class, () -> detector).run((context) -> {
			LeaderElection election = context.getBean(LeaderElection.class);
			assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
			LeadershipRecorder events = context.getBean(LeadershipRecorder.class);
			long first = events.lastToken();
			PollerJob job = context.getBean(PollerJob.class);
			SlowRun run = startSlowRun(job);
			LockContext running = job.running();
			assertThat(running).isNotNull();
			assertThat(running.isHeld()).isTrue();

			clock.addAndGet(TimeUnit.SECONDS.toNanos(15));
			// the session ends while the process is frozen; nothing has told the client yet
			assertThat(election.isLeader(PollerJob.ROLE)).isFalse();
			assertThat(running.isHeld()).isFalse();
			assertThat(events.revoked).isEmpty();
			ZooKeeperSessions.expire(context.getBean(CuratorFramework.class));

			ManualPauseDetectors.tick(detector);
			await().atMost(WAIT).until(() -> events.revoked.size() == 1);
			assertThat(events.revoked.get(0).getReason()).isEqualTo(LeadershipRevocationReason.CONNECTION_SUSPENDED);
			assertThat(running.isHeld()).isFalse();
			run.finish();
			assertThat(job.runs()).singleElement().isEqualTo(new PollerJob.Run(first, first, false, false));
			await().atMost(WAIT).until(() -> {
				ManualPauseDetectors.tick(detector);
				return election.isLeader(PollerJob.ROLE);
			});
			// the term is set before its LeadershipGrantedEvent is published, so isLeader() can be true first
			await().atMost(WAIT).until(() -> events.granted.size() == 2);
			assertThat(events.lastToken()).isGreaterThan(first);
			assertThat(election.fencingToken(PollerJob.ROLE)).hasValue(new FencingToken(events.lastToken()));
		});
	}

	private SlowRun startSlowRun(PollerJob job) throws InterruptedException {
		CountDownLatch release = job.holdRuns();
		Future<?> run = this.runner.submit(() -> {
			job.pollSlowly();
			return null;
		});
		assertThat(job.started().await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		return new SlowRun(release, run);
	}

	// the node of this instance's leadership
	private static String leaderNode(ApplicationContext context) {
		LeadershipTerm term = ((CuratorLeaderElection) context.getBean(LeaderElection.class)).term(PollerJob.ROLE);
		assertThat(term).isNotNull();
		return term.nodePath();
	}

	private record SlowRun(CountDownLatch release, Future<?> run) {

		void finish() throws Exception {
			this.release.countDown();
			this.run.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		}

	}

}
