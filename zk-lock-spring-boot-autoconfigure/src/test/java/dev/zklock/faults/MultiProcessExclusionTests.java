package dev.zklock.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exclusion across processes: 3 worker JVMs × 4 threads × 500 acquisitions of one
 * MUTEX key through {@code LockTemplate}, each a non-atomic read, sleep, write of a
 * counter kept in a shared file. The final count is exact. The same load without the
 * lock loses increments, which shows the test can fail.
 */
@TestInstance(Lifecycle.PER_CLASS)
class MultiProcessExclusionTests {

	private static final Logger logger = LoggerFactory.getLogger(MultiProcessExclusionTests.class);

	private static final int PROCESSES = 3;

	private static final int THREADS = 4;

	private static final int ACQUISITIONS = 500;

	private static final int UNLOCKED_INCREMENTS = 50;

	private static final Duration LOAD_TIMEOUT = Duration.ofMinutes(5);

	@TempDir
	static Path directory;

	private InJvmZooKeeper zookeeper;

	private final List<WorkerProcess> workers = new ArrayList<>();

	@BeforeAll
	void startWorkers() throws IOException {
		this.zookeeper = InJvmZooKeeper.builder().start();
		Path counters = Files.createDirectories(directory.resolve("counters"));
		for (int i = 1; i <= PROCESSES; i++) {
			this.workers.add(WorkerProcess.launch("x" + i, directory, this.zookeeper.connectString(),
					"file:" + counters, Map.of()));
		}
		this.workers.forEach(WorkerProcess::awaitReady);
	}

	@AfterAll
	void stopWorkers() {
		this.workers.forEach(WorkerProcess::close);
		if (this.zookeeper != null) {
			this.zookeeper.close();
		}
	}

	@Test
	void lockedIncrementsAcrossProcessesAreExact() throws IOException {
		long start = System.nanoTime();
		List<WorkerEvent> done = runLoad("locked", "grants=" + ACQUISITIONS + " sleepMs=1");
		double seconds = (System.nanoTime() - start) / 1e9;
		long grants = done.stream().mapToLong((event) -> event.count("grants")).sum();
		long count = counter("locked");
		logger.info("EXCLUSION {} processes x {} threads x {} acquisitions of one key: count={} (expected {}), "
				+ "wall={} s, {} acquisitions/s, {} ms per acquisition", PROCESSES, THREADS, ACQUISITIONS, count,
				PROCESSES * THREADS * ACQUISITIONS, String.format("%.1f", seconds),
				String.format("%.0f", grants / seconds), String.format("%.2f", seconds * 1000 / grants));
		assertThat(grants).isEqualTo(PROCESSES * THREADS * ACQUISITIONS);
		assertThat(done).allSatisfy((event) -> {
			assertThat(event.count("WRITTEN")).isEqualTo(THREADS * ACQUISITIONS);
			assertThat(event.count("timeouts") + event.count("lockErrors") + event.count("releaseErrors")).isZero();
		});
		assertThat(count).isEqualTo(PROCESSES * THREADS * ACQUISITIONS);
	}

	@Test
	void unlockedIncrementsAcrossProcessesAreLost() throws IOException {
		long start = System.nanoTime();
		runLoad("unlocked", "grants=" + UNLOCKED_INCREMENTS + " sleepMs=1 lock=false");
		long count = counter("unlocked");
		int expected = PROCESSES * THREADS * UNLOCKED_INCREMENTS;
		logger.info("EXCLUSION control without lock: {} processes x {} threads x {} increments: count={} of {} "
				+ "({} lost), wall={} ms", PROCESSES, THREADS, UNLOCKED_INCREMENTS, count, expected, expected - count,
				(System.nanoTime() - start) / 1_000_000);
		assertThat(count).isLessThan(expected);
	}

	private List<WorkerEvent> runLoad(String key, String parameters) {
		for (WorkerProcess worker : this.workers) {
			worker.send("load id=" + key + " key=" + key + " threads=" + THREADS + " timeoutMs=60000 " + parameters);
		}
		return this.workers.stream().map((worker) -> worker.await("load-done", key, LOAD_TIMEOUT)).toList();
	}

	private long counter(String key) throws IOException {
		return Long.parseLong(Files.readString(directory.resolve("counters").resolve(key + ".txt")).trim());
	}

}
