package dev.zklock.aop;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.faults.WorkerEvents;
import dev.zklock.testsupport.ZooKeeperWorkers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The done-when of minimum hold: three application JVMs ({@link MinHoldWorker}),
 * whose {@code @Scheduled(fixedRate = 1000)} schedulers fire 0, 150 and 300 ms
 * apart, run a 50 ms try-once job. With {@code minHold = "900ms"} the job runs
 * exactly once per second for 30 s. The control, three more JVMs at the same
 * offsets on a base path of their own and without minHold, runs the job more than
 * once in a second, since each run ends before the next scheduler fires. Both
 * groups run at the same time against one ZooKeeper server process; run times are
 * wall-clock milliseconds of one machine, so comparable across the JVMs.
 */
class MinHoldProcessTests {

	private static final long[] OFFSETS = { 0, 150, 300 };

	private static final long STARTUP_MILLIS = 120_000;

	private static final int SECONDS = 30;

	private static final int CONTROL_SECONDS = 10;

	private static final int WARM_UP = 5;

	// each second's window starts in the quiet part of the period, well before the first offset
	private static final long WINDOW_SHIFT = 300;

	private static final List<String> JVM_OPTIONS = List.of("-Xmx128m", "-Xss512k", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData");

	@RegisterExtension
	static final ZooKeeperWorkers workers = new ZooKeeperWorkers(JVM_OPTIONS);

	private final List<Run> runs = new CopyOnWriteArrayList<>();

	private final List<Run> firings = new CopyOnWriteArrayList<>();

	private final Map<String, Boolean> ready = new HashMap<>();

	@Test
	void minHoldRunsTheJobOncePerSecondAndTheControlRunsItTwice() throws Exception {
		// a grid in the past: each worker fires at its offset after every whole second of it
		long grid = System.currentTimeMillis();
		for (int i = 0; i < OFFSETS.length; i++) {
			startWorker("minhold-" + i, "/minhold", "900ms", grid, OFFSETS[i]);
			startWorker("control-" + i, "/control", "", grid, OFFSETS[i]);
		}
		await().atMost(java.time.Duration.ofMillis(STARTUP_MILLIS))
			.until(() -> readyCount() == workers.size());
		// the first window starts a few periods after the last worker was ready, once their startup is over
		long now = System.currentTimeMillis();
		long first = grid - WINDOW_SHIFT + (Math.floorDiv(now - grid, MinHoldWorker.PERIOD_MILLIS) + WARM_UP)
				* MinHoldWorker.PERIOD_MILLIS;
		long end = first + SECONDS * MinHoldWorker.PERIOD_MILLIS;
		await().atMost(java.time.Duration.ofSeconds(SECONDS + 30))
			.until(() -> System.currentTimeMillis() > end + MinHoldWorker.PERIOD_MILLIS);

		Map<Long, List<Run>> minHold = perWindow("minhold-", first, SECONDS);
		Map<Long, List<Run>> control = perWindow("control-", first, CONTROL_SECONDS);
		List<Run> minHoldRuns = minHold.values().stream().flatMap(List::stream).toList();
		long minGap = minGap(minHoldRuns);
		long doubles = control.values().stream().filter((window) -> window.size() > 1).count();
		int controlRuns = control.values().stream().mapToInt(List::size).sum();
		System.err.printf("MINHOLD: %d runs in %d s (by %s), min gap %d ms; control: %d runs in %d s, %d seconds "
				+ "with more than one run; firing offsets %s ms%n", minHoldRuns.size(), SECONDS,
				byWorker(minHoldRuns), minGap, controlRuns, CONTROL_SECONDS, doubles, offsets(grid));

		if (minHold.values().stream().anyMatch((window) -> window.size() != 1)) {
			System.err.println("MINHOLD firings and runs, ms after the grid: " + timeline("minhold-", grid));
		}
		assertThat(minHold.values()).as("one run in every second: %s", minHold)
			.allSatisfy((window) -> assertThat(window).hasSize(1));
		assertThat(minHoldRuns).hasSize(SECONDS);
		assertThat(minGap).as("no two runs closer than minHold").isGreaterThanOrEqualTo(880);
		assertThat(doubles).as("control: without minHold a second has more than one run: %s", control)
			.isPositive();
	}

	private void startWorker(String id, String basePath, String minHold, long grid, long offset) {
		workers.start(id, MinHoldWorker.class, List.of("--id=" + id, "--connect=" + workers.connectString(),
				"--base-path=" + basePath, "--min-hold=" + minHold, "--grid=" + grid, "--offset=" + offset),
				this::accept);
	}

	private void accept(String line) {
		if (!line.startsWith(WorkerEvents.PREFIX)) {
			return;
		}
		Map<String, String> fields = new LinkedHashMap<>();
		String[] parts = line.substring(WorkerEvents.PREFIX.length()).split(" ");
		for (int i = 1; i < parts.length; i++) {
			int equals = parts[i].indexOf('=');
			fields.put(parts[i].substring(0, equals), parts[i].substring(equals + 1));
		}
		if (parts[0].equals("ready")) {
			synchronized (this.ready) {
				this.ready.put(fields.get("id"), true);
			}
		}
		else if (parts[0].equals("fired")) {
			this.firings.add(new Run(fields.get("id"), Long.parseLong(fields.get("at")), 0));
		}
		else if (parts[0].equals("run")) {
			this.runs.add(new Run(fields.get("id"), Long.parseLong(fields.get("start")),
					Long.parseLong(fields.get("end"))));
		}
	}

	private int readyCount() {
		synchronized (this.ready) {
			return this.ready.size();
		}
	}

	// the runs of one group in each one-second window from the first on
	private Map<Long, List<Run>> perWindow(String group, long first, int seconds) {
		Map<Long, List<Run>> windows = new TreeMap<>();
		for (int i = 0; i < seconds; i++) {
			windows.put(first + i * MinHoldWorker.PERIOD_MILLIS, new ArrayList<>());
		}
		long end = first + seconds * MinHoldWorker.PERIOD_MILLIS;
		for (Run run : this.runs) {
			if (run.worker().startsWith(group) && run.start() >= first && run.start() < end) {
				long window = first + Math.floorDiv(run.start() - first, MinHoldWorker.PERIOD_MILLIS)
						* MinHoldWorker.PERIOD_MILLIS;
				windows.get(window).add(run);
			}
		}
		return windows;
	}

	private static long minGap(List<Run> runs) {
		List<Run> sorted = runs.stream().sorted(Comparator.comparingLong(Run::start)).toList();
		long gap = Long.MAX_VALUE;
		for (int i = 1; i < sorted.size(); i++) {
			gap = Math.min(gap, sorted.get(i).start() - sorted.get(i - 1).start());
		}
		return gap;
	}

	private String timeline(String group, long grid) {
		List<String> events = new ArrayList<>();
		this.firings.stream()
			.filter((firing) -> firing.worker().startsWith(group))
			.forEach((firing) -> events.add((firing.start() - grid) + " fired " + firing.worker()));
		this.runs.stream()
			.filter((run) -> run.worker().startsWith(group))
			.forEach((run) -> events.add((run.start() - grid) + " ran " + run.worker() + " to " + (run.end() - grid)));
		return events.stream().sorted(Comparator.comparingLong((event) -> Long.parseLong(event.split(" ")[0]))).toList()
			.toString();
	}

	// the median offset of each worker's firings from the whole seconds of the grid
	private Map<String, Long> offsets(long grid) {
		Map<String, List<Long>> offsets = new TreeMap<>();
		for (Run run : this.firings) {
			offsets.computeIfAbsent(run.worker(), (worker) -> new ArrayList<>())
				.add(Math.floorMod(run.start() - grid, MinHoldWorker.PERIOD_MILLIS));
		}
		Map<String, Long> medians = new TreeMap<>();
		offsets.forEach((worker, values) -> medians.put(worker, values.stream().sorted().toList().get(values.size() / 2)));
		return medians;
	}

	private static Map<String, Long> byWorker(List<Run> runs) {
		Map<String, Long> counts = new TreeMap<>();
		runs.forEach((run) -> counts.merge(run.worker(), 1L, Long::sum));
		return counts;
	}

	/**
	 * One run of the job.
	 *
	 * @param worker the worker id
	 * @param start when the job began, wall-clock ms
	 * @param end when it ended
	 */
	record Run(String worker, long start, long end) {

		@Override
		public String toString() {
			return this.worker + "@" + (this.start % 100_000);
		}

	}

}
