package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.HolderTimeline.Hold;
import dev.zklock.core.HolderTimeline.Peak;
import dev.zklock.testsupport.ZooKeeperWorkers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SEMAPHORE exclusion across processes: three application JVMs
 * ({@link SemaphoreWorker}) of {@value SemaphoreWorker#THREADS} threads each take one
 * lock with {@value #PERMITS} permits, on a ZooKeeper server process, with 4 s
 * sessions, for {@value #RUN_MILLIS} ms. Every hold is reported with its fencing
 * token and {@code CLOCK_MONOTONIC} times taken inside the acquire-release bracket, and
 * {@link HolderTimeline} counts the holds that overlap. One JVM is killed
 * ({@code kill -9}) while it holds a permit; its open holds count until ZooKeeper was
 * last seen to keep its session's nodes. The control has one JVM take a
 * {@link java.util.concurrent.Semaphore} of its own instead of the lock, and the count
 * goes above {@value #PERMITS}.
 */
class SemaphoreExclusionProcessTests {

	private static final Logger logger = LoggerFactory.getLogger(SemaphoreExclusionProcessTests.class);

	private static final int PERMITS = 3;

	private static final long RUN_MILLIS = 18_000;

	private static final long KILL_AFTER_MILLIS = 6_000;

	private static final long CONTROL_MILLIS = 5_000;

	private static final long STARTUP_MILLIS = 90_000;

	private static final long SESSION_NANOS = SemaphoreWorker.SESSION_TIMEOUT.toNanos();

	@RegisterExtension
	static final ZooKeeperWorkers workers = new ZooKeeperWorkers();

	private final HolderTimeline timeline = new HolderTimeline();

	// the killed session's nodes, printed only: the test does not rely on the protocol's layout
	private final List<String> deadNodes = new ArrayList<>();

	@Test
	void neverMoreThanThreeHoldersAcrossJvmsAndAKill() throws Exception {
		long started = System.nanoTime();
		startWorkers("exclusion", "a", "b", "c");
		awaitReady();
		long go = go();
		awaitHoldAfter(go + millis(KILL_AFTER_MILLIS));
		String victim = "b";
		workers.worker(victim).send("linger");
		this.timeline.await("the lingering hold of " + victim,
				(timeline) -> timeline.holds().stream().anyMatch((hold) -> hold.linger), 10_000);
		Hold lingering = this.timeline.holds().stream().filter((hold) -> hold.linger).findFirst().orElseThrow();
		long killed = System.nanoTime();
		workers.worker(victim).kill();
		long[] seen = awaitNodesGone(lingering.session);
		long lastSeen = seen[0];
		long gone = seen[1];
		List<String> alive = List.of("a", "c");
		long afterExpiry = Math.max(gone, killed + SESSION_NANOS);
		this.timeline.await("holds to the end of the run, by every live JVM after the victim's session ended",
				(timeline) -> holdAfter(timeline, go + millis(RUN_MILLIS), (hold) -> true)
						&& alive.stream().allMatch((id) -> holdAfter(timeline, afterExpiry, byWorker(id))),
				RUN_MILLIS + 30_000);
		stop(alive);

		assertThat(this.timeline.problems()).isEmpty();
		List<Hold> holds = this.timeline.holds();
		List<Hold> dead = holds.stream().filter(byWorker(victim).and(Hold::isOpen)).toList();
		assertThat(dead).as("the victim's holds open at the kill").contains(lingering);
		// a killed holder's lease lives until its session ends: count it to the last time ZooKeeper still had it
		dead.forEach((hold) -> hold.openUntil = lastSeen);
		assertThat(holds).as("holds never closed").noneMatch((hold) -> hold.isOpen() && !dead.contains(hold));
		assertThat(holds).allMatch((hold) -> hold.held);
		assertThat(holds.stream().map((hold) -> hold.token).distinct()).as("one fencing token per hold")
			.hasSize(holds.size());
		assertThat(this.timeline.events("lost")).isEmpty();
		assertThat(this.timeline.events("lost-hold")).isEmpty();
		assertThat(this.timeline.events("error")).isEmpty();
		Map<String, Long> perWorker = countByWorker(holds);
		for (Map<String, String> done : this.timeline.events("done")) {
			assertThat(perWorker.get(done.get("id"))).as("holds seen of %s", done.get("id"))
				.isEqualTo(Long.parseLong(done.get("holds")));
		}

		Peak peak = HolderTimeline.peak(holds);
		List<Hold> live = holds.stream().filter(byWorker(victim).negate()).toList();
		Long reuse = HolderTimeline.firstAbove(live, killed, PERMITS - dead.size());
		Peak deadWindow = HolderTimeline.peak(live, killed, lastSeen);
		long begunMeanwhile = live.stream().filter((hold) -> hold.enter > killed && hold.enter < lastSeen).count();
		Map<String, Long> afterExpiryHolds = countByWorker(
				live.stream().filter((hold) -> hold.enter > afterExpiry).toList());
		logger.info("SEMAPHORE {} permits, 3 JVMs x {} threads, {} s: holds {} (total {}), max holders at once {}, "
				+ "timeouts {}; kill -9 of {} holding {} permit(s), nodes {}: its nodes last seen {} ms and gone {} "
				+ "ms after the kill, meanwhile {} holds begun and at most {} live holders; its permit reused {} ms "
				+ "after the kill; holds after the kill + session timeout and the nodes gone {}; wall {} s", PERMITS,
				SemaphoreWorker.THREADS, RUN_MILLIS / 1000, perWorker, holds.size(), peak.holders(), timeouts(), victim,
				dead.size(), this.deadNodes.stream().map((node) -> node.substring(SemaphoreWorker.BASE_PATH.length()))
					.toList(),
				toMillis(lastSeen - killed), toMillis(gone - killed), begunMeanwhile, deadWindow.holders(),
				(reuse != null) ? toMillis(reuse - killed) : "never", afterExpiryHolds,
				(System.nanoTime() - started) / 1_000_000_000);
		assertThat(peak.holders()).as("most holders at once, dead leases included").isEqualTo(PERMITS);
		assertThat(deadWindow.holders()).as("live holders while the dead leases lived")
			.isLessThanOrEqualTo(PERMITS - dead.size());
		assertThat(reuse).as("a live JVM took the dead JVM's permit").isNotNull();
		assertThat(afterExpiryHolds).as("holds after the victim's session ended").containsOnlyKeys(alive);
		assertThat(gone - killed).as("the dead session's nodes went").isLessThan(SESSION_NANOS + millis(10_000));
	}

	@Test
	void controlOneJvmWithALocalSemaphoreIsSeenAboveThePermits() throws Exception {
		long started = System.nanoTime();
		startWorkers("control", "p", "q");
		startWorker("control", "r", true);
		awaitReady();
		long go = go();
		awaitHoldAfter(go + millis(CONTROL_MILLIS));
		stop(workers.ids());

		assertThat(this.timeline.problems()).isEmpty();
		List<Hold> holds = this.timeline.holds();
		Peak all = HolderTimeline.peak(holds);
		Peak locked = HolderTimeline.peak(holds.stream().filter(byWorker("r").negate()).toList());
		logger.info("SEMAPHORE control, {} permits, p and q take the lock and r a local Semaphore({}), {} s: "
				+ "holds {}, max holders at once {} (of p and q alone {}), wall {} s", PERMITS, PERMITS,
				CONTROL_MILLIS / 1000, countByWorker(holds), all.holders(), locked.holders(),
				(System.nanoTime() - started) / 1_000_000_000);
		assertThat(all.holders()).as("the checker sees the JVM that bypasses the lock").isGreaterThan(PERMITS);
		assertThat(locked.holders()).isEqualTo(PERMITS);
	}

	private void startWorkers(String key, String... ids) {
		for (String id : ids) {
			startWorker(key, id, false);
		}
	}

	private void startWorker(String key, String id, boolean local) {
		workers.start(id, SemaphoreWorker.class, List.of("--id=" + id, "--connect=" + workers.connectString(),
				"--key=" + key, "--permits=" + PERMITS, "--local=" + local), this.timeline::accept);
	}

	private void awaitReady() {
		try {
			this.timeline.await("every worker ready",
					(timeline) -> timeline.events("ready").size() == workers.size(), STARTUP_MILLIS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private long go() {
		long go = System.nanoTime();
		workers.sendAll("go");
		return go;
	}

	private void awaitHoldAfter(long nanoTime) throws InterruptedException {
		this.timeline.await("a hold after " + nanoTime, (timeline) -> holdAfter(timeline, nanoTime, (hold) -> true),
				Math.max(0, toMillis(nanoTime - System.nanoTime())) + 30_000);
	}

	private void stop(List<String> ids) throws InterruptedException {
		ids.forEach((id) -> workers.worker(id).send("stop"));
		this.timeline.await("done from " + ids, (timeline) -> timeline.events("done").size() == ids.size(), 60_000);
	}

	// watch the victim session's nodes, wherever the protocol keeps them, until they go
	private long[] awaitNodesGone(String session) throws Exception {
		long[] seen = new long[2];
		try (CuratorFramework client = CuratorFrameworkFactory.newClient(workers.connectString(),
				new RetryOneTime(100))) {
			client.start();
			assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
			List<String> nodes = this.deadNodes;
			collectEphemerals(client, SemaphoreWorker.BASE_PATH, session, nodes);
			seen[0] = System.nanoTime();
			assertThat(nodes).as("nodes of the killed session %s", session).isNotEmpty();
			await().pollInterval(Duration.ofMillis(5)).atMost(Duration.ofNanos(SESSION_NANOS).plusSeconds(15))
				.until(() -> {
					long before = System.nanoTime();
					for (String node : nodes) {
						Stat stat = client.checkExists().forPath(node);
						if (stat != null && Long.toHexString(stat.getEphemeralOwner()).equals(session)) {
							seen[0] = before;
							return false;
						}
					}
					seen[1] = System.nanoTime();
					return true;
				});
		}
		return seen;
	}

	private static void collectEphemerals(CuratorFramework client, String path, String session, List<String> nodes)
			throws Exception {
		Stat stat = client.checkExists().forPath(path);
		if (stat == null) {
			return;
		}
		if (Long.toHexString(stat.getEphemeralOwner()).equals(session)) {
			nodes.add(path);
		}
		for (String child : client.getChildren().forPath(path)) {
			collectEphemerals(client, path + "/" + child, session, nodes);
		}
	}

	private static boolean holdAfter(HolderTimeline timeline, long nanoTime, Predicate<Hold> filter) {
		return timeline.holds().stream().filter(filter).anyMatch((hold) -> hold.enter > nanoTime);
	}

	private static Predicate<Hold> byWorker(String id) {
		return (hold) -> hold.worker.equals(id);
	}

	private static Map<String, Long> countByWorker(List<Hold> holds) {
		Map<String, Long> counts = new TreeMap<>();
		holds.forEach((hold) -> counts.merge(hold.worker, 1L, Long::sum));
		return counts;
	}

	private Map<String, String> timeouts() {
		Map<String, String> timeouts = new TreeMap<>();
		this.timeline.events("done").forEach((done) -> timeouts.put(done.get("id"), done.get("timeouts")));
		return timeouts;
	}

	private static long millis(long millis) {
		return millis * 1_000_000;
	}

	private static long toMillis(long nanos) {
		return nanos / 1_000_000;
	}

}
