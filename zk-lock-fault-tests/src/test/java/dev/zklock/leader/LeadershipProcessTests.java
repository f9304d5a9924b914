package dev.zklock.leader;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.LeadershipRevocationReason;
import dev.zklock.leader.LeaderTimeline.Event;
import dev.zklock.testsupport.ZooKeeperProcess;
import dev.zklock.testsupport.ZooKeeperWorkers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three application JVMs ({@link LeaderWorker}) share role {@value LeaderWorker#ROLE}
 * on a ZooKeeper server process, with 4 s sessions. A {@link LeaderTimeline}
 * collects every grant, revocation, run and write with its token and checks that
 * one leader leads at a time and that no two runs of the
 * {@code @Scheduled(fixedRate = 200)} job overlap, across a {@code kill -9} of the
 * leader, a graceful shutdown and a {@code SIGSTOP} past the session.
 */
class LeadershipProcessTests {

	private static final long SESSION_MILLIS = 4_000;

	// the server expires sessions in buckets of its tick: up to a tick past the timeout
	private static final long TICK_MILLIS = ZooKeeperProcess.DEFAULT_TICK_TIME.toMillis();

	private static final long STARTUP_MILLIS = 90_000;

	@RegisterExtension
	static final ZooKeeperWorkers workers = new ZooKeeperWorkers(LeaderWorker.JVM_OPTIONS);

	private final LeaderTimeline timeline = new LeaderTimeline();

	@Test
	void oneLeaderAtATimeAndNoDoubleRunsAcrossAKill() throws Exception {
		startWorkers("a", "b", "c");
		Event first = this.timeline.await(granted(), STARTUP_MILLIS);
		long windowStart = System.currentTimeMillis();
		this.timeline.await((event) -> event.type().equals("run") && event.start() >= windowStart + 10_000, 30_000);
		String leader = currentLeader();
		workers.worker(leader).kill();
		long killedAt = System.currentTimeMillis();
		this.timeline.killed(leader, killedAt);
		Event takeOver = this.timeline.await(granted().and((event) -> !event.worker().equals(leader)),
				SESSION_MILLIS + 10_000);
		// the session and the server's tick, then a second for the next candidate's grant
		assertThat(takeOver.at() - killedAt).as("take-over after kill -9, ms")
			.isLessThan(SESSION_MILLIS + TICK_MILLIS + 1_000);
		this.timeline.await((event) -> event.type().equals("run") && event.start() >= windowStart + 30_000, 30_000);

		assertThat(this.timeline.runProblems()).isEmpty();
		assertThat(this.timeline.leadershipProblems(Set.of())).isEmpty();
		assertThat(this.timeline.rejectedWrites()).isEmpty();
		List<Event> runs = this.timeline.events("run");
		assertThat(runs).hasSizeGreaterThan(100);
		assertThat(runs.stream().map(Event::token).distinct()).containsExactly(first.token(), takeOver.token());
		System.err.printf("leadership: %d runs in 30 s, take-over %d ms after kill -9%n", runs.size(),
				takeOver.at() - killedAt);
	}

	@Test
	void gracefulShutdownAndSigstopHandTheRoleOver() throws Exception {
		startWorkers("a", "b", "c");
		Event first = this.timeline.await(granted(), STARTUP_MILLIS);
		String leader = first.worker();
		long exitSent = System.currentTimeMillis();
		workers.worker(leader).send("exit");
		Event second = this.timeline.await(granted().and((event) -> !event.worker().equals(leader)), 10_000);
		assertThat(second.at() - exitSent).as("take-over after graceful shutdown, ms").isLessThan(1_000);
		Event shutdown = this.timeline.await(revoked(leader, first.token()), 10_000);
		assertThat(shutdown.reason()).isEqualTo(LeadershipRevocationReason.SHUTDOWN.name());
		assertThat(shutdown.at()).isLessThanOrEqualTo(second.at());
		assertThat(workers.worker(leader).awaitExit(Duration.ofSeconds(30))).isZero();

		String paused = second.worker();
		workers.worker(paused).pause();
		long pausedAt = System.currentTimeMillis();
		Event third = this.timeline.await(granted().and((event) -> !Set.of(leader, paused).contains(event.worker())),
				SESSION_MILLIS + 20_000);
		this.timeline.await((event) -> event.type().equals("run") && event.token() == third.token(), 10_000);
		workers.worker(paused).resume();
		Event lost = this.timeline.await(revoked(paused, second.token()), 30_000);
		assertThat(lost.at()).isGreaterThan(third.at());
		// whichever state Curator reports first after the resume
		assertThat(lost.reason()).isIn(LeadershipRevocationReason.CONNECTION_SUSPENDED.name(),
				LeadershipRevocationReason.CONNECTION_LOST.name());
		workers.worker(paused).send("write");
		Event late = this.timeline.await(lateWrite(paused), 10_000);
		assertThat(late.token()).isEqualTo(second.token());
		assertThat(this.timeline.rejectedWrites()).contains(late);
		// control: the fence accepts the current leader's write
		workers.worker(third.worker()).send("write");
		Event current = this.timeline.await(lateWrite(third.worker()), 10_000);
		assertThat(this.timeline.rejectedWrites()).doesNotContain(current);
		assertThat(this.timeline.leadershipProblems(Set.of(paused))).isEmpty();
		// the old leader joined the queue again, behind the new one
		try (CuratorFramework client = CuratorFrameworkFactory.newClient(workers.connectString(),
				new RetryOneTime(100))) {
			client.start();
			assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
			String queue = "/leader-processes/" + CuratorLeaderElection.LOCK_NAME + "/" + LeaderWorker.ROLE;
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> client.getChildren().forPath(queue).size() == 2);
			}
			catch (ConditionTimeoutException ex) {
				// who owns the nodes, and what the two workers last logged, say whether a join hung or leaked
				throw new AssertionError(RoleQueue.describe(client, queue) + "\n" + RoleQueue.logLines(workers, paused)
						+ "\n" + RoleQueue.logLines(workers, third.worker()), ex);
			}
		}
		System.err.printf("leadership: take-over %d ms after graceful shutdown, %d ms after SIGSTOP (%s)%n",
				second.at() - exitSent, third.at() - pausedAt, lost.reason());
	}

	private void startWorkers(String... ids) throws InterruptedException {
		this.timeline.startWorkers(workers, LeaderWorker.class, List.of(), STARTUP_MILLIS, ids);
	}

	// the worker of the newest grant
	private String currentLeader() {
		List<Event> grants = this.timeline.events("granted");
		return grants.get(grants.size() - 1).worker();
	}

	private static Predicate<Event> granted() {
		return (event) -> event.type().equals("granted");
	}

	private static Predicate<Event> revoked(String worker, long token) {
		return (event) -> event.type().equals("revoked") && event.worker().equals(worker) && event.token() == token;
	}

	private static Predicate<Event> lateWrite(String worker) {
		return (event) -> event.type().equals("write") && event.worker().equals(worker) && event.late();
	}

}
