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
 * <p>
 * A hot key with local hand-off: the same 3 JVMs × {@value HotKeyLoad#THREADS}
 * threads lock one key with {@code localHandoff(true)} for 30 s, each hold an
 * increment of the shared file's counter and a fenced write to the
 * {@link ProtectedResource}, and every attempt recorded with {@code CLOCK_MONOTONIC}
 * times ({@link GrantLog}). The holds never overlap, tokens never decrease in grant
 * order (holders of one tenure share one), no JVM gets more than
 * {@code max-passes + 1} grants in a row while another JVM waits, and every JVM gets
 * at least a quarter of the grants. "Waits" is what a holder can know: JVM B waits
 * from the later of an ask of one of its threads and the end of its own last hold,
 * and a grant counts against the bound once B has waited {@value #GRACE_MILLIS} ms, the
 * grace for B's node to be created and the holder's watch notification to arrive (a
 * tenure learns of another process through that one notification). The control runs
 * the same load with a max-passes of a million: runs exceed the bound, so the check
 * can fail; the unlocked control's recorded holds overlap, so the interval check can
 * too.
 */
@TestInstance(Lifecycle.PER_CLASS)
class MultiProcessExclusionTests {

	private static final Logger logger = LoggerFactory.getLogger(MultiProcessExclusionTests.class);

	private static final int PROCESSES = 3;

	private static final int THREADS = 4;

	private static final int ACQUISITIONS = 500;

	private static final int UNLOCKED_INCREMENTS = 50;

	private static final Duration LOAD_TIMEOUT = Duration.ofMinutes(5);

	/** The tenure bounds of the hot-key run: the engine's defaults. */
	private static final int MAX_PASSES = 16;

	private static final Duration MAX_TIME = Duration.ofMillis(50);

	/** How long another JVM must have waited before a grant counts against the bound. */
	static final long GRACE_MILLIS = 20;

	@TempDir
	static Path directory;

	private InJvmZooKeeper zookeeper;

	private ProtectedResource resource;

	private Path counters;

	private final List<WorkerProcess> workers = new ArrayList<>();

	@BeforeAll
	void startWorkers() throws IOException {
		this.zookeeper = InJvmZooKeeper.builder().start();
		this.resource = new ProtectedResource();
		this.counters = Files.createDirectories(directory.resolve("counters"));
		for (int i = 1; i <= PROCESSES; i++) {
			this.workers.add(WorkerProcess.launch("x" + i, directory, this.zookeeper.connectString(),
					"file:" + this.counters, Map.of()));
		}
		this.workers.forEach(WorkerProcess::awaitReady);
	}

	@AfterAll
	void stopWorkers() {
		this.workers.forEach(WorkerProcess::close);
		if (this.resource != null) {
			this.resource.close();
		}
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
		Map<String, Path> records = HotKeyLoad.recordFiles(this.workers, directory, "unlocked");
		runLoad("unlocked", "grants=" + UNLOCKED_INCREMENTS + " sleepMs=1 lock=false", records);
		long count = counter("unlocked");
		int expected = PROCESSES * THREADS * UNLOCKED_INCREMENTS;
		long overlaps = Grants.read(records).overlaps();
		logger.info("EXCLUSION control without lock: {} processes x {} threads x {} increments: count={} of {} "
				+ "({} lost), sections overlapping on CLOCK_MONOTONIC={}, wall={} ms", PROCESSES, THREADS,
				UNLOCKED_INCREMENTS, count, expected, expected - count, overlaps, (System.nanoTime() - start) / 1_000_000);
		assertThat(count).isLessThan(expected);
		assertThat(overlaps).as("unlocked sections seen overlapping by the interval check").isPositive();
	}

	@Test
	void hotKeyWithLocalHandoffExcludesKeepsTokenOrderAndSharesTheKey() throws IOException {
		HotKeyLoad.Result run = HotKeyLoad.run(this.workers, store(), directory, "hot", MAX_PASSES, MAX_TIME,
				Duration.ofSeconds(30));
		Grants grants = run.grants();
		Grants.Runs runs = grants.runs(GRACE_MILLIS * 1_000_000);
		Grants.Runs withoutGrace = grants.runs(0);
		ResourceStats stats = this.resource.stats("hot");
		long total = grants.granted().size();
		Map<String, Long> perJvm = grants.perJvm();
		logger.info("HOT KEY {} JVMs x {} threads, local hand-off, max-passes {}, max-time {} ms, {} ms: grants={} "
				+ "({}/s) perJvm={} passes={} tenures={} runs={} (mean {}, longest {}) longestWhileAnotherWaited={} "
				+ "(grace {} ms; {} without grace) overlaps={} tokenDecreases={} tokensAcrossJvms={} | fenced store: "
				+ "{} | file count={}", PROCESSES, HotKeyLoad.THREADS, MAX_PASSES, MAX_TIME.toMillis(), run.millis(),
				total, total * 1000 / Math.max(1, run.millis()), perJvm, run.passes(), run.tenures(), runs.count(),
				String.format("%.1f", runs.mean()), runs.longest(), runs.longestWhileWaiting(), GRACE_MILLIS,
				withoutGrace.longestWhileWaiting(), grants.overlaps(), grants.tokenDecreases(),
				grants.tokensSharedAcrossJvms(), stats.summary(), counter("hot"));
		assertThat(run.loads()).allSatisfy((event) -> {
			assertThat(event.count("WRITTEN")).as("%s", event).isEqualTo(event.count("grants"));
			assertThat(event.count("timeouts") + event.count("lockErrors") + event.count("releaseErrors")
					+ event.count("threadFailures")).as("%s", event).isZero();
		});
		assertThat(grants.gaveUp()).isZero();
		assertThat(run.passes()).as("grants passed within a JVM").isPositive();
		assertThat(grants.overlaps()).as("holds overlapping on CLOCK_MONOTONIC").isZero();
		assertThat(grants.tokenDecreases()).as("tokens decreasing in grant order").isZero();
		assertThat(grants.tokensSharedAcrossJvms()).as("one token held by two JVMs").isZero();
		assertThat(runs.longestWhileWaiting()).as("grants in a row to one JVM while another waited")
			.isLessThanOrEqualTo(MAX_PASSES + 1);
		assertThat(perJvm).allSatisfy((jvm, count) -> assertThat(count * 4).as("grants of %s of %s", jvm, total)
			.isGreaterThanOrEqualTo(total));
		assertThat(stats.sections()).isEqualTo(total);
		assertThat(stats.overlaps() + stats.concurrentPairs()).as("sections open together in the fenced store").isZero();
		assertThat(stats.tokenRegressions()).isZero();
		assertThat(stats.staleReadsRejected() + stats.staleRejected()).isZero();
		assertThat(stats.countIsExact()).isTrue();
		assertThat(stats.value()).isEqualTo(total);
		assertThat(counter("hot")).as("the shared file's count").isEqualTo(total);
	}

	@Test
	void hotKeyControlWithoutTenureBoundsRunsPastTheBound() throws IOException {
		HotKeyLoad.Result run = HotKeyLoad.run(this.workers, store(), directory, "hot-control", 1_000_000,
				Duration.ofMinutes(10), Duration.ofSeconds(3));
		Grants grants = run.grants();
		Grants.Runs runs = grants.runs(GRACE_MILLIS * 1_000_000);
		logger.info("HOT KEY control, max-passes 1000000, max-time 10 min, {} ms: grants={} perJvm={} runs={} "
				+ "(longest {}) longestWhileAnotherWaited={} (grace {} ms) overlaps={}", run.millis(),
				grants.granted().size(), grants.perJvm(), runs.count(), runs.longest(), runs.longestWhileWaiting(),
				GRACE_MILLIS, grants.overlaps());
		assertThat(runs.longestWhileWaiting()).as("the check sees a JVM keep the key while others wait")
			.isGreaterThan(MAX_PASSES + 1);
		assertThat(grants.overlaps()).isZero();
	}

	// the fenced store, then the shared file
	private String store() {
		return "checker:" + this.resource.address() + "+file:" + this.counters;
	}

	private List<WorkerEvent> runLoad(String key, String parameters) {
		return runLoad(key, parameters, Map.of());
	}

	private List<WorkerEvent> runLoad(String key, String parameters, Map<String, Path> records) {
		for (WorkerProcess worker : this.workers) {
			Path record = records.get(worker.id());
			worker.send("load id=" + key + " key=" + key + " threads=" + THREADS + " timeoutMs=60000 " + parameters
					+ ((record != null) ? " record=" + record : ""));
		}
		return this.workers.stream().map((worker) -> worker.await("load-done", key, LOAD_TIMEOUT)).toList();
	}

	private long counter(String key) throws IOException {
		return Long.parseLong(Files.readString(this.counters.resolve(key + ".txt")).trim());
	}

}
