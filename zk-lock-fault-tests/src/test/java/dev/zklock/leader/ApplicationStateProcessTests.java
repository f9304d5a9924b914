package dev.zklock.leader;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
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
import dev.zklock.testsupport.ZooKeeperWorkers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three application JVMs ({@link ApplicationStateWorker}) share role
 * {@value ApplicationStateWorker#ROLE} on a ZooKeeper server process, with 4 s
 * sessions; each follows its readiness and its health group, with a yield-after of
 * 5 s. A {@link LeaderTimeline} collects every grant, revocation and run, and checks
 * that one instance leads at a time and that no two runs of the long-running
 * {@code @Leader} job overlap: when the leader stops accepting traffic, and when its
 * health group is DOWN for 3 s and then for 15 s.
 */
class ApplicationStateProcessTests {

	private static final long STARTUP_MILLIS = 90_000;

	private static final Duration YIELD_AFTER = Duration.ofSeconds(5);

	@RegisterExtension
	static final ZooKeeperWorkers workers = new ZooKeeperWorkers(LeaderWorker.JVM_OPTIONS);

	private final LeaderTimeline timeline = new LeaderTimeline();

	@Test
	void aLeaderThatRefusesTrafficIsToldHandsOverAndQueuesAgainWhenReady() throws Exception {
		startWorkers("a", "b", "c");
		Event first = this.timeline.await(granted(), STARTUP_MILLIS);
		String leader = first.worker();
		// a worker reports ready once its join is sent, not once its node exists: under load a node came
		// after the old leader's node of its join again, and so ahead of it in the queue
		awaitQueue((owners) -> owners.size() == 3);
		this.timeline.await(of("started", leader).and((event) -> event.token() == first.token()), 10_000);
		workers.worker(leader).send("refuse");
		Event refused = this.timeline.await(of("refuse", leader), 10_000);
		Event told = this.timeline.await(of("told", leader), 10_000);
		Event second = this.timeline.await(granted().and((event) -> !event.worker().equals(leader)), 10_000);
		long election = second.at() - refused.at();
		// as a graceful shutdown: the next candidate leads within a round trip once the running method returned
		assertThat(election).as("election after REFUSING_TRAFFIC, ms").isLessThan(1_000);
		Event revoked = this.timeline.await(revoked(leader, first.token()), 10_000);
		assertThat(revoked.reason()).isEqualTo(LeadershipRevocationReason.YIELDED.name());
		assertThat(told.at() - refused.at()).as("method told after REFUSING_TRAFFIC, ms").isLessThan(1_000);
		Event toldRun = this.timeline.await(of("run", leader).and((event) -> event.token() == first.token()), 10_000);
		assertThat(toldRun.end()).isLessThanOrEqualTo(second.at());
		this.timeline.await(of("started", second.worker()).and((event) -> event.token() == second.token()), 10_000);

		workers.worker(leader).send("accept");
		awaitQueue((owners) -> owners.size() == 3 && owners.get(2).contains("\"app\":\"" + leader + "\""));
		assertThat(this.timeline.events("granted")).extracting(Event::worker).containsExactly(leader, second.worker());
		assertThat(this.timeline.runProblems()).isEmpty();
		assertThat(this.timeline.leadershipProblems(Set.of())).isEmpty();
		System.err.printf("leadership: another JVM led %d ms after the leader's readiness went REFUSING_TRAFFIC; its "
				+ "method was told %d ms after the switch%n", election, told.at() - refused.at());
	}

	@Test
	void aHealthGroupDownFor3SecondsMovesNothingAndFor15SecondsMovesTheRoleOnceAfterTheYieldAfter() throws Exception {
		startWorkers("a", "b", "c");
		Event first = this.timeline.await(granted(), STARTUP_MILLIS);
		String leader = first.worker();
		awaitQueue((owners) -> owners.size() == 3);

		// DOWN for 3 s, then UP: nothing moves, not even once the yield-after has passed since the DOWN
		workers.worker(leader).send("down");
		Event shortDown = this.timeline.await(of("down", leader), 10_000);
		await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> grants() == 1);
		workers.worker(leader).send("up");
		await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> grants() == 1);
		Event shortUp = this.timeline.await(of("up", leader), 10_000);
		assertThat(this.timeline.events("revoked")).isEmpty();

		// DOWN for 15 s: the role moves once, after about the yield-after
		workers.worker(leader).send("down");
		Event longDown = this.timeline.await(of("down", leader).and((event) -> event.at() > shortUp.at()), 10_000);
		Event second = this.timeline.await(granted().and((event) -> !event.worker().equals(leader)), 20_000);
		long moved = second.at() - longDown.at();
		assertThat(moved).as("move after the health group went DOWN, ms")
			.isBetween(YIELD_AFTER.toMillis(), YIELD_AFTER.toMillis() + 2_000);
		long rest = 15_000 - (System.currentTimeMillis() - longDown.at());
		await().during(Duration.ofMillis(rest)).atMost(Duration.ofMillis(rest + 10_000)).until(() -> grants() == 2);
		workers.worker(leader).send("up");
		Event longUp = this.timeline.await(of("up", leader).and((event) -> event.at() > longDown.at()), 10_000);
		awaitQueue((owners) -> owners.size() == 3 && owners.get(2).contains("\"app\":\"" + leader + "\""));
		assertThat(grants()).isEqualTo(2);
		assertThat(this.timeline.events("revoked")).singleElement()
			.satisfies((event) -> assertThat(event.reason()).isEqualTo(LeadershipRevocationReason.YIELDED.name()));
		assertThat(this.timeline.runProblems()).isEmpty();
		assertThat(this.timeline.leadershipProblems(Set.of())).isEmpty();
		System.err.printf("leadership: health group DOWN %d ms moved nothing; DOWN %d ms moved the role once, %d ms "
				+ "after it went DOWN (yield-after %d ms)%n", shortUp.at() - shortDown.at(),
				longUp.at() - longDown.at(), moved, YIELD_AFTER.toMillis());
	}

	private void startWorkers(String... ids) throws InterruptedException {
		this.timeline.startWorkers(workers, ApplicationStateWorker.class,
				List.of("--yield-after=" + YIELD_AFTER.toSeconds() + "s"), STARTUP_MILLIS, ids);
	}

	// the owner data of the role's nodes, in queue order; a timeout says what the queue held and what the
	// workers logged
	private void awaitQueue(Predicate<List<String>> condition) throws Exception {
		try (CuratorFramework client = CuratorFrameworkFactory.newClient(workers.connectString(),
				new RetryOneTime(100))) {
			client.start();
			assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
			String queue = ApplicationStateWorker.BASE_PATH + "/" + CuratorLeaderElection.LOCK_NAME + "/"
					+ ApplicationStateWorker.ROLE;
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> {
					List<String> owners = client.getChildren()
						.forPath(queue)
						.stream()
						.sorted(Comparator.comparing((node) -> node.substring(node.length() - 10)))
						.map((node) -> owner(client, queue + "/" + node))
						.toList();
					return condition.test(owners);
				});
			}
			catch (ConditionTimeoutException ex) {
				StringBuilder diagnostics = new StringBuilder(RoleQueue.describe(client, queue) + "\nevents: "
						+ this.timeline.events());
				for (String id : workers.ids()) {
					diagnostics.append("\n").append(RoleQueue.logLines(workers, id));
				}
				throw new AssertionError(diagnostics.toString(), ex);
			}
		}
	}

	private static String owner(CuratorFramework client, String node) {
		try {
			return new String(client.getData().forPath(node), StandardCharsets.UTF_8);
		}
		catch (Exception ex) {
			// released between the listing and the read
			return "";
		}
	}

	private int grants() {
		return this.timeline.events("granted").size();
	}

	private static Predicate<Event> granted() {
		return (event) -> event.type().equals("granted");
	}

	private static Predicate<Event> of(String type, String worker) {
		return (event) -> event.type().equals(type) && event.worker().equals(worker);
	}

	private static Predicate<Event> revoked(String worker, long token) {
		return of("revoked", worker).and((event) -> event.token() == token);
	}

}
