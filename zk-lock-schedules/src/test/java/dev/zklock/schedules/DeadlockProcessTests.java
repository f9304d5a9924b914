package dev.zklock.schedules;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.LockPaths;
import dev.zklock.testsupport.JvmProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Deadlocks across JVMs (#42, done when): three worker JVMs
 * ({@link DeadlockWorkerMain}), each a lock manager on its own session of one real
 * ZooKeeper, nest locks in opposite orders. In each of 20 rounds exactly one wait
 * fails with a {@code LockDeadlockException}, within {@code after} + 1 s of the
 * cycle forming (timed from the {@code go} that lets the inner waits start, so
 * the figure is an upper bound), every other is granted, and no node is left: two
 * JVMs in MUTEX, WRITE and READ-inside-WRITE, three JVMs in a cycle of three, and
 * two threads of one JVM. A contended workload in one global order reports no
 * deadlock. {@code after} is 300 ms here rather than the default 1 s, to keep the
 * rounds short; with detection off the same crossing ends by timeout instead,
 * which these checks would fail. In this module rather than the engine's: the
 * engine builds alone on the build's critical path, the schedules beside the
 * auto-configuration with minutes to spare.
 */
class DeadlockProcessTests {

	private static final Logger logger = LoggerFactory.getLogger(DeadlockProcessTests.class);

	private static final Duration AFTER = Duration.ofMillis(300);

	private static final int ROUNDS = 20;

	// far beyond detection: an inner wait that runs out means the cycle was not broken
	private static final long INNER_TIMEOUT_MS = 10_000;

	private static final Duration WAIT = Duration.ofSeconds(30);

	// the workload's work under both locks: 2 ms, or LONG_HOLD once in LONG_EVERY, so that waits pass `after` many
	// times over and the longest last seconds (#42 asks for waits of several seconds)
	private static final Duration LONG_HOLD = Duration.ofMillis(1_500);

	private static final int LONG_EVERY = 100;

	private static final String BASE_PATH = "/deadlock-process-" + UUID.randomUUID();

	@TempDir
	static Path directory;

	private static TestingServer server;

	private static CuratorFramework client;

	private static final List<JvmProcess> workers = new ArrayList<>();

	// each line a worker printed, with when it arrived on System.nanoTime()'s clock: rounds make every line unique
	private static final Map<String, Long> lines = new ConcurrentHashMap<>();

	@BeforeAll
	static void startWorkers() throws Exception {
		server = new TestingServer(true);
		client = ScheduleClient.start(server.getConnectString());
		for (int i = 0; i < 3; i++) {
			String name = "worker-" + i;
			JvmProcess worker = JvmProcess.builder(name, DeadlockWorkerMain.class.getName())
				.directory(directory)
				.logFileName(name + ".log")
				.rootLogLevel("WARN")
				.arguments(List.of(server.getConnectString(), BASE_PATH, Long.toString(AFTER.toMillis()), name))
				.outputListener((line) -> lines.putIfAbsent(name + " " + line, System.nanoTime()))
				.build();
			workers.add(worker);
			worker.start();
		}
		// started together, so that their start-ups overlap
		await().atMost(Duration.ofSeconds(60))
			.until(() -> lines.keySet().stream().filter((line) -> line.endsWith(" ready")).count() == workers.size());
	}

	@AfterAll
	static void stopWorkers() throws Exception {
		for (JvmProcess worker : workers) {
			if (worker.isAlive()) {
				worker.send("exit");
			}
		}
		for (JvmProcess worker : workers) {
			if (worker.awaitExit(Duration.ofSeconds(10)) < 0) {
				worker.kill();
			}
		}
		if (client != null) {
			client.close();
		}
		if (server != null) {
			server.close();
		}
	}

	@ParameterizedTest
	@EnumSource(Crossing.class)
	void twoJvmsNestingInOppositeOrdersEndWithOneVictimEachRound(Crossing crossing) throws Exception {
		Rounds rounds = new Rounds("two JVMs, " + crossing);
		for (int r = 0; r < ROUNDS; r++) {
			String round = crossing.name().charAt(0) + "" + crossing.name().length() + "r" + r;
			rounds.add(round(round, List.of(nest(0, "x", "y", crossing), nest(1, "y", "x", crossing))));
		}
		rounds.report();
	}

	@Test
	void threeJvmsInACycleOfThreeEndWithOneVictimEachRound() throws Exception {
		Rounds rounds = new Rounds("three JVMs");
		for (int r = 0; r < ROUNDS; r++) {
			rounds.add(round("t" + r, List.of(nest(0, "a", "b", Crossing.MUTEX), nest(1, "b", "c", Crossing.MUTEX),
					nest(2, "c", "a", Crossing.MUTEX))));
		}
		rounds.report();
	}

	@Test
	void twoThreadsOfOneJvmEndWithOneVictimEachRound() throws Exception {
		Rounds rounds = new Rounds("two threads of one JVM");
		for (int r = 0; r < ROUNDS; r++) {
			rounds.add(round("s" + r, List.of(nest(0, "x", "y", Crossing.MUTEX), nest(0, "y", "x", Crossing.MUTEX))));
		}
		rounds.report();
	}

	// The control: the same crossing with detection off is no round that passes, it ends by timeout
	@Test
	void withDetectionOffTheCrossingEndsByTimeoutInstead() throws Exception {
		workers.get(0).send("detection off");
		workers.get(1).send("detection off");
		try {
			Map<String, String> outcomes = play("off", List.of(nest(0, "x", "y", Crossing.MUTEX),
					nest(1, "y", "x", Crossing.MUTEX)), 1500).outcomes();
			assertThat(outcomes.values()).doesNotContain("deadlock").contains("timeout");
		}
		finally {
			workers.get(0).send("detection on");
			workers.get(1).send("detection on");
		}
		quickly().until(() -> nodesLeft(List.of(BASE_PATH + "/x/off", BASE_PATH + "/y/off", waits())).isEmpty());
	}

	@Test
	void aContendedWorkloadInOneGlobalOrderReportsNoDeadlock() throws Exception {
		int threads = 8;
		int iterations = 42;
		long started = System.nanoTime();
		for (int i = 0; i < workers.size(); i++) {
			workers.get(i).send("workload " + threads + " " + iterations + " " + (i + 1) + " " + LONG_HOLD.toMillis()
					+ " " + LONG_EVERY);
		}
		await().atMost(Duration.ofSeconds(180))
			.until(() -> lines.keySet().stream().filter((line) -> line.contains(" workload ")).count() == workers.size());
		int deadlocks = 0;
		int timeouts = 0;
		int errors = 0;
		int nested = 0;
		long maxWaitMs = 0;
		int pastAfter = 0;
		for (String line : lines.keySet().stream().filter((line) -> line.contains(" workload ")).toList()) {
			String[] words = line.substring(line.indexOf(" workload ") + " workload ".length()).split(" ");
			deadlocks += Integer.parseInt(words[0]);
			timeouts += Integer.parseInt(words[1]);
			errors += Integer.parseInt(words[2]);
			nested += Integer.parseInt(words[3]);
			maxWaitMs = Math.max(maxWaitMs, Long.parseLong(words[4]));
			pastAfter += Integer.parseInt(words[5]);
		}
		logger.info("Workload without cycles: {} nested acquisitions by {} threads x {} JVMs in {} ms; longest wait {} "
				+ "ms, {} waits past after ({} ms); {} LockDeadlockException, {} timeouts, {} errors", nested, threads,
				workers.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), maxWaitMs, pastAfter,
				AFTER.toMillis(), deadlocks, timeouts, errors);
		assertThat(deadlocks).as("false positives").isZero();
		assertThat(errors).isZero();
		assertThat(timeouts).isZero();
		assertThat(nested).isEqualTo(threads * iterations * workers.size());
		// the waits were long enough to be published and searched, many times over
		assertThat(pastAfter).isGreaterThan(100);
		assertThat(maxWaitMs).as("longest wait, ms").isGreaterThan(LONG_HOLD.toMillis());
		List<String> paths = new ArrayList<>(List.of(waits(), BASE_PATH + "/wi/k0", BASE_PATH + "/wi/k1"));
		for (int k = 0; k < 4; k++) {
			paths.add(BASE_PATH + "/wo/k" + k);
		}
		quickly().until(() -> nodesLeft(paths).isEmpty());
	}

	/**
	 * How each thread of a round takes its own lock and asks for the next.
	 */
	enum Crossing {

		MUTEX("MUTEX false MUTEX"), WRITE("WRITE false WRITE"), READ_IN_WRITE("WRITE true WRITE");

		// as the worker reads them: the outer mode, whether a READ is taken inside it, the inner mode
		private final String modes;

		Crossing(String modes) {
			this.modes = modes;
		}

	}

	/**
	 * One thread of a round: in worker {@code worker}, takes {@code outer} and asks
	 * for {@code inner}, both keyed by the round.
	 */
	private record Nest(int worker, String outer, String inner, Crossing crossing) {

		String command(String round, long innerTimeoutMs) {
			return "nest " + round + " " + this.outer + " " + this.inner + " " + this.crossing.modes + " "
					+ innerTimeoutMs;
		}

		String line(String round, String what) {
			return "worker-" + this.worker + " " + what + " " + round + " " + round + "-" + this.outer;
		}

	}

	private static Nest nest(int worker, String outer, String inner, Crossing crossing) {
		return new Nest(worker, outer, inner, crossing);
	}

	/**
	 * How the threads of a round ended, and when after the cycle formed.
	 *
	 * @param outcomes by thread: acquired, timeout, deadlock or an error
	 * @param afterForming by thread, from the go to the end line
	 */
	private record Played(Map<String, String> outcomes, Map<String, Duration> afterForming) {

	}

	// One round that must end with one victim within after + 1 s, the others granted, no node left
	private Duration round(String round, List<Nest> ring) throws Exception {
		Played played = play(round, ring, INNER_TIMEOUT_MS);
		assertThat(played.outcomes()).as("round %s", round)
			.hasSize(ring.size())
			.containsValue("deadlock")
			.allSatisfy((thread, outcome) -> assertThat(outcome).isIn("deadlock", "acquired"));
		List<String> victims = played.outcomes().entrySet().stream()
			.filter((entry) -> entry.getValue().equals("deadlock"))
			.map(Map.Entry::getKey)
			.toList();
		assertThat(victims).as("victims of round %s", round).hasSize(1);
		Duration latency = played.afterForming().get(victims.get(0));
		assertThat(latency).as("detection in round %s", round).isLessThanOrEqualTo(AFTER.plusSeconds(1));
		List<String> paths = new ArrayList<>(List.of(waits()));
		ring.forEach((nest) -> paths.add(BASE_PATH + "/" + nest.outer() + "/" + round));
		// the round's queues and the wait records: the whole tree grows with the rounds' containers
		quickly().until(() -> nodesLeft(paths).isEmpty());
		return latency;
	}

	private static String waits() {
		return BASE_PATH + "/" + LockPaths.WAITS;
	}

	// The nodes under the given paths: lock nodes in a queue, or wait records
	private static List<String> nodesLeft(List<String> paths) throws Exception {
		List<String> left = new ArrayList<>();
		for (String path : paths) {
			if (client.checkExists().forPath(path) != null) {
				client.getChildren().forPath(path).forEach((child) -> left.add(path + "/" + child));
			}
		}
		return left;
	}

	// Polled every few milliseconds: a round is short, and Awaitility's default first poll would add 100 ms to each
	private static ConditionFactory quickly() {
		return await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5)).atMost(WAIT);
	}

	private Played play(String round, List<Nest> ring, long innerTimeoutMs) {
		for (Nest nest : ring) {
			workers.get(nest.worker()).send(nest.command(round, innerTimeoutMs));
		}
		quickly().until(() -> ring.stream().allMatch((nest) -> lines.containsKey(nest.line(round, "holds"))));
		Set<Integer> involved = new LinkedHashSet<>();
		ring.forEach((nest) -> involved.add(nest.worker()));
		long formed = System.nanoTime();
		involved.forEach((worker) -> workers.get(worker).send("go " + round));
		quickly().until(() -> ring.stream().allMatch((nest) -> ended(nest, round).isPresent()));
		Map<String, String> outcomes = new ConcurrentHashMap<>();
		Map<String, Duration> afterForming = new ConcurrentHashMap<>();
		for (Nest nest : ring) {
			String line = ended(nest, round).orElseThrow();
			String thread = round + "-" + nest.outer();
			outcomes.put(thread, line.substring(line.lastIndexOf(' ') + 1));
			afterForming.put(thread, Duration.ofNanos(lines.get(line) - formed));
		}
		return new Played(outcomes, afterForming);
	}

	private static Optional<String> ended(Nest nest, String round) {
		String prefix = nest.line(round, "ended") + " ";
		return lines.keySet().stream().filter((line) -> line.startsWith(prefix)).findFirst();
	}

	/**
	 * The detection latencies of one test's rounds, logged as min, median and max.
	 */
	private static final class Rounds {

		private final String what;

		private final List<Duration> latencies = new ArrayList<>();

		private final long started = System.nanoTime();

		Rounds(String what) {
			this.what = what;
		}

		void add(Duration latency) {
			this.latencies.add(latency);
		}

		void report() {
			List<Long> millis = this.latencies.stream().map(Duration::toMillis).sorted().toList();
			logger.info("Deadlock rounds, {}: {} rounds in {} ms, one victim each; detection after the cycle formed "
					+ "(after = {} ms): min {} ms, median {} ms, max {} ms", this.what, millis.size(),
					TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - this.started), AFTER.toMillis(), millis.get(0),
					millis.get(millis.size() / 2), millis.get(millis.size() - 1));
			assertThat(millis).hasSize(ROUNDS);
		}

	}

}
