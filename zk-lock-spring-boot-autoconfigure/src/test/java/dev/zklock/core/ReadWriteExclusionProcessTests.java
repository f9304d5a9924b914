package dev.zklock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.HolderTimeline.Hold;
import dev.zklock.testsupport.ZooKeeperWorkers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * READ/WRITE exclusion across processes with downgrades mixed in: three
 * application JVMs ({@link ReadWriteWorker}) of {@value ReadWriteWorker#THREADS}
 * threads each take READ or WRITE on one key, on a ZooKeeper server process, for
 * {@value #RUN_MILLIS} ms; a quarter of the writes downgrade. Every interval in which
 * a thread holds a mode is reported with {@code CLOCK_MONOTONIC} times, and no WRITE
 * interval may overlap an interval of another thread. The control has one JVM take
 * a read/write lock of its own instead, and the checker sees overlaps.
 */
class ReadWriteExclusionProcessTests {

	private static final Logger logger = LoggerFactory.getLogger(ReadWriteExclusionProcessTests.class);

	private static final long RUN_MILLIS = 20_000;

	private static final long CONTROL_MILLIS = 4_000;

	private static final long STARTUP_MILLIS = 90_000;

	@RegisterExtension
	static final ZooKeeperWorkers workers = new ZooKeeperWorkers();

	private final HolderTimeline timeline = new HolderTimeline();

	@Test
	void noWriterOverlapsAnotherHolderAcrossJvmsWithDowngrades() throws Exception {
		run(RUN_MILLIS, false, "a", "b", "c");
		List<Hold> holds = this.timeline.holds();
		List<String> overlaps = overlaps(holds);
		Map<String, Long> byMode = new TreeMap<>();
		holds.forEach((hold) -> byMode.merge(mode(hold), 1L, Long::sum));
		long downgrades = this.timeline.events("done").stream()
			.mapToLong((done) -> Long.parseLong(done.get("downgrades")))
			.sum();
		logger.info("READ/WRITE, 3 JVMs x {} threads, {} s: intervals {} by mode, {} downgrades, overlaps {}",
				ReadWriteWorker.THREADS, RUN_MILLIS / 1000, byMode, downgrades, overlaps.size());
		assertThat(this.timeline.events("error")).isEmpty();
		assertThat(downgrades).as("downgrades made").isGreaterThan(10);
		assertThat(byMode).containsKeys("R", "W");
		assertThat(overlaps).as("a WRITE interval overlapping another thread's interval").isEmpty();
	}

	@Test
	void controlOneJvmWithALocalReadWriteLockIsSeenOverlapping() throws Exception {
		run(CONTROL_MILLIS, true, "p", "q", "r");
		List<String> overlaps = overlaps(this.timeline.holds());
		logger.info("READ/WRITE control, r takes a local lock, {} s: {} intervals, overlaps {}",
				CONTROL_MILLIS / 1000, this.timeline.holds().size(), overlaps.size());
		assertThat(overlaps).as("the checker sees the JVM that bypasses the lock").isNotEmpty();
	}

	private void run(long millis, boolean lastLocal, String... ids) throws InterruptedException {
		for (int i = 0; i < ids.length; i++) {
			boolean local = lastLocal && i == ids.length - 1;
			workers.start(ids[i], ReadWriteWorker.class,
					List.of("--id=" + ids[i], "--connect=" + workers.connectString(), "--local=" + local),
					this.timeline::accept);
		}
		this.timeline.await("every worker ready",
				(timeline) -> timeline.events("ready").size() == workers.size(), STARTUP_MILLIS);
		long go = System.nanoTime();
		workers.sendAll("go");
		long end = go + millis * 1_000_000;
		this.timeline.await("an interval after " + millis + " ms",
				(timeline) -> timeline.holds().stream().anyMatch((hold) -> hold.enter > end), millis + 30_000);
		workers.sendAll("stop");
		this.timeline.await("done from every worker",
				(timeline) -> timeline.events("done").size() == workers.size(), 60_000);
		assertThat(this.timeline.problems()).isEmpty();
		assertThat(this.timeline.holds()).noneMatch(Hold::isOpen);
	}

	/**
	 * Each WRITE interval against every interval of another thread: a downgrade's
	 * READ overlaps its own WRITE, which is allowed.
	 */
	static List<String> overlaps(List<Hold> holds) {
		List<Hold> sorted = new ArrayList<>(holds);
		sorted.sort((x, y) -> Long.compare(x.enter, y.enter));
		List<String> overlaps = new ArrayList<>();
		for (int i = 0; i < sorted.size(); i++) {
			Hold first = sorted.get(i);
			for (int j = i + 1; j < sorted.size() && sorted.get(j).enter < first.end(); j++) {
				Hold second = sorted.get(j);
				boolean writer = mode(first).equals("W") || mode(second).equals("W");
				if (writer && !owner(first).equals(owner(second))) {
					overlaps.add(first + " and " + second);
				}
			}
		}
		return overlaps;
	}

	// the thread field is the thread's number and the mode: "a/2-W"
	private static String mode(Hold hold) {
		return hold.thread.substring(hold.thread.lastIndexOf('-') + 1);
	}

	private static String owner(Hold hold) {
		return hold.thread.substring(0, hold.thread.lastIndexOf('-'));
	}

}
