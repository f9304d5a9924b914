package dev.zklock.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.awaitility.Awaitility.await;

/**
 * One timed run of a hot key with local hand-off on worker JVMs that are ready:
 * bound the tenures, let {@value #THREADS} threads per JVM lock one key over and
 * over with {@code handoff=true} for a while, each recording its attempts
 * ({@link GrantLog}), stop them, and gather the records and the local hand-off
 * counts of the run.
 */
final class HotKeyLoad {

	/** Threads per JVM on the one key. */
	static final int THREADS = 8;

	private static final Duration EVENT_TIMEOUT = Duration.ofSeconds(60);

	private static final Duration STOP_TIMEOUT = Duration.ofMinutes(2);

	private HotKeyLoad() {
	}

	/**
	 * Where each worker records the attempts of a load.
	 * @param workers the workers
	 * @param directory the directory
	 * @param key the load's key
	 * @return the files, by worker id
	 */
	static Map<String, Path> recordFiles(List<WorkerProcess> workers, Path directory, String key) {
		Map<String, Path> files = new LinkedHashMap<>();
		workers.forEach((worker) -> files.put(worker.id(), directory.resolve("grants-" + key + "-" + worker.id() + ".txt")));
		return files;
	}

	/**
	 * Run the load.
	 * @param workers the workers, ready
	 * @param resource what the sections go through, see {@link ResourceClient#connect(String)}
	 * @param directory where the records go
	 * @param key the key, also the load's id
	 * @param maxPasses the tenures' max-passes
	 * @param maxTime the tenures' max-time
	 * @param length how long the threads keep asking
	 * @return what happened
	 */
	static Result run(List<WorkerProcess> workers, String resource, Path directory, String key, int maxPasses,
			Duration maxTime, Duration length) {
		for (WorkerProcess worker : workers) {
			worker.send("limits id=" + key + " maxPasses=" + maxPasses + " maxTimeMs=" + maxTime.toMillis());
			worker.await("limits", key, EVENT_TIMEOUT);
		}
		HandoffCounts before = HandoffCounts.of(workers, key + "-before");
		Map<String, Path> files = recordFiles(workers, directory, key);
		long start = System.nanoTime();
		for (WorkerProcess worker : workers) {
			worker.send("load id=" + key + " key=" + key + " threads=" + THREADS
					+ " grants=0 sleepMs=1 timeoutMs=60000 handoff=true resource=" + resource + " record="
					+ files.get(worker.id()));
		}
		await("the run of " + key).atMost(length.plusSeconds(10))
			.pollInterval(Duration.ofMillis(100))
			.failFast("a worker died", () -> !workers.stream().allMatch(WorkerProcess::isAlive))
			.until(() -> System.nanoTime() - start >= length.toNanos());
		workers.forEach((worker) -> worker.send("stop id=" + key));
		List<WorkerEvent> loads = workers.stream().map((worker) -> worker.await("load-done", key, STOP_TIMEOUT)).toList();
		long millis = (System.nanoTime() - start) / 1_000_000;
		HandoffCounts run = HandoffCounts.of(workers, key + "-after").since(before);
		return new Result(Grants.read(files), loads, run.passes(), run.tenures(), millis);
	}

	/**
	 * What a run did.
	 *
	 * @param grants every attempt
	 * @param loads the workers' {@code load-done} events
	 * @param passes grants passed within a JVM
	 * @param tenures grants through ZooKeeper, each starting a tenure
	 * @param millis from the start to the last {@code load-done}
	 */
	record Result(Grants grants, List<WorkerEvent> loads, long passes, long tenures, long millis) {

	}

}
