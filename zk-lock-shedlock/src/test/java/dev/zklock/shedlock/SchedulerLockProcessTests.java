package dev.zklock.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.core.LockPaths;
import dev.zklock.faults.WorkerEvent;
import dev.zklock.faults.WorkerEvents;
import dev.zklock.testsupport.ZooKeeperProcess;
import dev.zklock.testsupport.ZooKeeperWorkers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @SchedulerLock} across JVMs: three {@link SchedulerLockWorker}s on
 * {@link ZkLockProvider} run a 200 ms scheduled task with
 * {@code lockAtLeastFor = "PT0.15S"} for 30 s, with a {@code kill -9} of the holder
 * half-way: no two runs overlap, no run starts within 150 ms of the ask for the lock of the run before (lockAtLeastFor spaces the grants, which come between the two), and runs go on within
 * the 4 s session after the kill, plus what no ZooKeeper lock can avoid: up to a 2 s
 * tick, since the server ends a session on the first tick past the timeout, and a
 * second for the task's next firing (every 200 ms) to take the lock. Three control JVMs at the same time, each with a
 * lock of its own, run the task on all three and fail both checks. Times are
 * {@link System#nanoTime()} of one machine.
 */
class SchedulerLockProcessTests {

	private static final long SESSION_MILLIS = 4_000;

	// the server expires sessions in buckets of its tick: up to a tick past the timeout
	private static final long TICK_MILLIS = ZooKeeperProcess.DEFAULT_TICK_TIME.toMillis();

	private static final long AT_LEAST_NANOS = TimeUnit.MILLISECONDS.toNanos(150);

	private static final List<String> JVM_OPTIONS = List.of("-Xmx128m", "-Xss512k", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData");

	@RegisterExtension
	static final ZooKeeperWorkers workers = new ZooKeeperWorkers(JVM_OPTIONS);

	private final List<Run> runs = new CopyOnWriteArrayList<>();

	private final Set<String> ready = java.util.concurrent.ConcurrentHashMap.newKeySet();

	private final AtomicReference<CountDownLatch> killNext = new AtomicReference<>();

	private volatile Run killed;

	// when the killed JVM was gone: its session can only expire after that, so the take-over counts from there
	private volatile long killedAt;

	@Test
	void oneRunAtATimeAcrossJvmsAndOnAfterAKillWhileTheControlRunsEverywhere() throws Exception {
		for (String id : List.of("zk-0", "zk-1", "zk-2", "control-0", "control-1", "control-2")) {
			workers.start(id, SchedulerLockWorker.class, List.of("--id=" + id, "--connect=" + workers.connectString(),
					"--base-path=/" + id.substring(0, id.indexOf('-')), "--control=" + id.startsWith("control")),
					this::accept);
		}
		await().atMost(Duration.ofSeconds(120)).until(() -> this.ready.size() == workers.size());
		long first = System.nanoTime();
		// half-way, the next zk run that starts is killed while it holds the lock
		await().atMost(Duration.ofSeconds(30)).until(() -> System.nanoTime() - first > seconds(15));
		CountDownLatch kill = new CountDownLatch(1);
		this.killNext.set(kill);
		assertThat(kill.await(10, TimeUnit.SECONDS)).isTrue();
		long sessionEndedAt = awaitKilledHoldersNodeGone();
		await().atMost(Duration.ofSeconds(30)).until(() -> System.nanoTime() - first > seconds(30));
		long last = System.nanoTime();

		List<Run> zk = window("zk-", first, last);
		List<Run> control = window("control-", first, last);
		Run killedRun = this.killed;
		Run afterKill = zk.stream().filter((run) -> run.start() > killedRun.start()).findFirst().orElseThrow();
		long resumedMillis = TimeUnit.NANOSECONDS.toMillis(afterKill.start() - this.killedAt);
		long killMillis = TimeUnit.NANOSECONDS.toMillis(this.killedAt - killedRun.start());
		long sessionEndMillis = TimeUnit.NANOSECONDS.toMillis(sessionEndedAt - this.killedAt);
		long afterSessionEndMillis = TimeUnit.NANOSECONDS.toMillis(afterKill.start() - sessionEndedAt);
		System.err.printf("SCHEDULERLOCK: %d runs in 30 s by %s, min start gap %d ms, %d problems; kill -9 of %s, "
				+ "%d ms after its run started, its node gone %d ms after the kill (session %d ms, tick %d ms), "
				+ "next run %d ms after the kill, %d ms after the node went, by %s; control: %d runs by %s, "
				+ "%d problems%n", zk.size(), workersOf(zk), minGapMillis(zk), problems(zk).size(), killedRun.worker(),
				killMillis, sessionEndMillis, SESSION_MILLIS, TICK_MILLIS, resumedMillis, afterSessionEndMillis,
				afterKill.worker(), control.size(), workersOf(control), problems(control).size());
		assertThat(problems(zk)).isEmpty();
		assertThat(workersOf(zk)).hasSizeGreaterThanOrEqualTo(2);
		assertThat(afterKill.worker()).isNotEqualTo(killedRun.worker());
		// the session and the server's tick, then a second for the next scheduled run (every 200 ms) to take the lock
		assertThat(resumedMillis).as("runs go on within the session and a tick after kill -9 of the holder")
			.isLessThan(SESSION_MILLIS + TICK_MILLIS + 1_000);
		assertThat(workersOf(control)).as("control: the task runs on every JVM").hasSize(3);
		assertThat(problems(control)).as("control: the checks can fail").isNotEmpty();
	}

	// The killed holder's node is the first of the lock's queue; the server deletes it when it ends the
	// session, on the first tick past the timeout after the holder's last contact, which is the kill at the
	// latest: 4 to 6 s after that contact
	private static long awaitKilledHoldersNodeGone() throws Exception {
		String lock = "/zk/tick/" + LockPaths.NO_KEY;
		try (CuratorFramework observer = CuratorFrameworkFactory.newClient(workers.connectString(),
				new RetryOneTime(100))) {
			observer.start();
			String holder = observer.getChildren()
				.forPath(lock)
				.stream()
				.min(Comparator.comparing((node) -> node.substring(node.length() - 10)))
				.orElseThrow();
			await("the killed holder's node " + holder + " gone").atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> !observer.getChildren().forPath(lock).contains(holder));
			return System.nanoTime();
		}
	}

	private void accept(String line) {
		if (!line.startsWith(WorkerEvents.PREFIX)) {
			return;
		}
		WorkerEvent event = WorkerEvent.parse(line, System.nanoTime());
		String id = event.id();
		switch (event.type()) {
			case "ready" -> this.ready.add(id);
			case "started" -> {
				CountDownLatch kill = this.killNext.get();
				if (kill != null && id.startsWith("zk-") && this.killNext.compareAndSet(kill, null)) {
					workers.worker(id).kill();
					this.killedAt = System.nanoTime();
					this.killed = new Run(id, event.number("asked"), event.number("start"), Long.MAX_VALUE);
					this.runs.add(this.killed);
					kill.countDown();
				}
			}
			case "run" -> this.runs.add(new Run(id, event.number("asked"), event.number("start"),
					event.number("end")));
			default -> {
			}
		}
	}

	// the runs of one group that started in the window, by start; the killed run has no end
	private List<Run> window(String group, long from, long to) {
		return this.runs.stream()
			.filter((run) -> run.worker().startsWith(group) && run.start() >= from && run.start() < to)
			.sorted(Comparator.comparingLong(Run::start))
			.toList();
	}

	private static List<String> problems(List<Run> runs) {
		List<String> problems = new ArrayList<>();
		for (int i = 1; i < runs.size(); i++) {
			Run earlier = runs.get(i - 1);
			Run later = runs.get(i);
			if (earlier.end() != Long.MAX_VALUE && later.start() < earlier.end()) {
				problems.add("overlap: " + earlier + " and " + later);
			}
			// grants, which lockAtLeastFor spaces, come after the ask and before the start: on a busy machine a
			// run may start well after its grant, so two starts may come closer than 150 ms without a fault
			if (later.start() - earlier.asked() < AT_LEAST_NANOS) {
				problems.add("started within 150 ms of the earlier run's ask: " + earlier + " and " + later);
			}
		}
		return problems;
	}

	private static long minGapMillis(List<Run> runs) {
		long gap = Long.MAX_VALUE;
		for (int i = 1; i < runs.size(); i++) {
			gap = Math.min(gap, runs.get(i).start() - runs.get(i - 1).start());
		}
		return TimeUnit.NANOSECONDS.toMillis(gap);
	}

	private static Set<String> workersOf(List<Run> runs) {
		Set<String> workers = new TreeSet<>();
		runs.forEach((run) -> workers.add(run.worker()));
		return workers;
	}

	private static long seconds(int seconds) {
		return TimeUnit.SECONDS.toNanos(seconds);
	}

	/**
	 * One run of the task, in {@link System#nanoTime()}.
	 *
	 * @param worker the worker
	 * @param asked when its lock was asked for, before the grant
	 * @param start when it started, after the grant
	 * @param end when it ended, {@link Long#MAX_VALUE} for the killed run
	 */
	record Run(String worker, long asked, long start, long end) {

	}

}
