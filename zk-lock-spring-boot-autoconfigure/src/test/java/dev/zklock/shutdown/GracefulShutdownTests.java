package dev.zklock.shutdown;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.zklock.testsupport.InJvmZooKeeper;
import dev.zklock.testsupport.Jdk21;
import dev.zklock.testsupport.JvmProcess;
import dev.zklock.testsupport.OutputLines;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A locked job is running when its application gets SIGTERM; another application
 * instance, the probe, tries the same lock every 20 ms. Both are
 * {@link ShutdownDrainApplication}s in JVMs of their own on one real ZooKeeper
 * server. Whatever runs the job (an HTTP request under graceful shutdown,
 * {@code @Scheduled}, {@code @Async}, a {@code CompletableFuture} completed on
 * Boot's executor or on the application's own thread, a {@code Mono} on Reactor's
 * {@code boundedElastic} scheduler, a restart of the context in the same JVM,
 * virtual threads) and however the executors await termination,
 * the probe gets the lock only after the job has ended. When the job outlasts the
 * drain, its hold is given up with reason {@code SHUTDOWN}, announced before the
 * client closes and before the probe gets it. The control, without the drain,
 * shows the probe taking the lock while the job still runs.
 */
class GracefulShutdownTests {

	private static final Duration STEP = Duration.ofSeconds(60);

	private static final Pattern MICROS = Pattern.compile("^\\S+ (\\d+)");

	private static final AtomicInteger runs = new AtomicInteger();

	// asyncJobTenTimes: with two lanes, each round's start meets the other lane's job; ten rounds keep that
	// overlap repeated while leaving room in the CI budget
	private static final int ROUNDS = 10;

	// kept after the run, for the logs of the applications
	private static final Path directory = Path.of("target", "graceful-shutdown");

	private static InJvmZooKeeper zookeeper;

	// the lane of every test but asyncJobTenTimes, which adds a second one
	private static Lane lane;

	@BeforeAll
	static void startServerAndProbe() throws IOException {
		Files.createDirectories(directory);
		zookeeper = InJvmZooKeeper.builder().start();
		lane = Lane.start("probe");
	}

	@AfterAll
	static void stopServerAndProbe() {
		if (lane != null) {
			lane.probe().stop();
		}
		if (zookeeper != null) {
			zookeeper.close();
		}
	}

	@Test
	void httpRequestUnderGracefulShutdown() throws Exception {
		Run run = run("http", List.of("--work=http", "--spring.lifecycle.timeout-per-shutdown-phase=20s"), null);
		assertDrained(run);
		assertThat(run.response().get(10, TimeUnit.SECONDS)).isEqualTo("200 done");
	}

	@ParameterizedTest(name = "await-termination={0}, inject-scheduler={1}")
	@CsvSource({ "true, false", "true, true", "false, false", "false, true" })
	void scheduledJob(boolean awaitTermination, boolean injectScheduler) throws Exception {
		assertDrained(run("scheduled", List.of("--work=scheduled", "--inject-scheduler=" + injectScheduler,
				"--spring.task.scheduling.shutdown.await-termination=" + awaitTermination,
				"--spring.task.scheduling.shutdown.await-termination-period=20s"), null));
	}

	@ParameterizedTest(name = "await-termination={0}")
	@ValueSource(booleans = { true, false })
	void asyncJob(boolean awaitTermination) throws Exception {
		assertDrained(run("async", asyncSettings(awaitTermination), null));
	}

	// Two lanes side by side, one with the class's probe and base path, the other with a probe and a base path of
	// its own, each taking the next round when its last one is over: one round's JVM starts while another's job runs
	@Test
	void asyncJobTenTimes() throws Exception {
		List<String> settings = new ArrayList<>(asyncSettings(true));
		settings.add("--work-millis=1000");
		AtomicInteger rounds = new AtomicInteger();
		ExecutorService lanes = Executors.newFixedThreadPool(2);
		try {
			Future<?> first = lanes.submit(() -> rounds(lane, rounds, ROUNDS, settings));
			Future<?> second = lanes.submit(() -> {
				Lane own = Lane.start("probe lane 2");
				try {
					return rounds(own, rounds, ROUNDS, settings);
				}
				finally {
					own.probe().stop();
				}
			});
			for (Future<?> future : List.of(first, second)) {
				try {
					future.get(10, TimeUnit.MINUTES);
				}
				catch (ExecutionException ex) {
					// a Callable throws an Exception or an Error, such as a failed assertion
					if (ex.getCause() instanceof Error error) {
						throw error;
					}
					throw (Exception) ex.getCause();
				}
			}
		}
		finally {
			lanes.shutdownNow();
		}
	}

	// Runs rounds in a lane until every one of the count is taken
	private static Void rounds(Lane lane, AtomicInteger rounds, int count, List<String> settings) throws Exception {
		for (int round = rounds.incrementAndGet(); round <= count; round = rounds.incrementAndGet()) {
			assertDrained(run(lane, "async round " + round, settings, null));
		}
		return null;
	}

	@Test
	void completableFutureCompletedOnBootsExecutor() throws Exception {
		Run run = run("future-boot", List.of("--work=future-boot",
				"--spring.task.execution.shutdown.await-termination=true",
				"--spring.task.execution.shutdown.await-termination-period=20s"), null);
		assertDrained(run);
		assertThat(run.line("RESULT ")).endsWith(" ok");
	}

	@Test
	void completableFutureCompletedOnTheApplicationsOwnThread() throws Exception {
		Run run = run("future-own", List.of("--work=future-own"), null);
		assertDrained(run);
		assertThat(run.line("RESULT ")).endsWith(" ok");
	}

	@Test
	void monoWhoseWorkRunsOnAReactiveScheduler() throws Exception {
		Run run = run("mono", List.of("--work=mono"), null);
		assertDrained(run);
		assertThat(run.line("START ")).contains("boundedElastic");
		assertThat(run.line("RESULT ")).endsWith(" ok");
	}

	@Test
	void asyncJobAcrossARestartOfTheContextInTheSameJvm() throws Exception {
		Run run = run("refresh", executorSettings("refresh", true, "--inject-executor=true"), null);
		assertDrained(run);
		assertThat(run.lines()).anyMatch((line) -> line.startsWith("RESTARTED "));
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "async", "scheduled" })
	void onVirtualThreads(String work) throws Exception {
		Path jdk = Jdk21.requireHome();
		Run run = run("virtual " + work, List.of("--work=" + work, "--spring.threads.virtual.enabled=true",
				"--spring.task.execution.shutdown.await-termination=true",
				"--spring.task.scheduling.shutdown.await-termination=true"), jdk);
		assertDrained(run);
		assertThat(run.line("START ")).contains("VirtualThread");
	}

	@Test
	void jobOutlastingTheDrainIsGivenUpAndAnnouncedFirst() throws Exception {
		Run run = run("exceeded", List.of("--work=async", "--work-millis=10000", "--zk-lock.interrupt-on-loss=true",
				"--spring.lifecycle.timeout-per-shutdown-phase=2s"), null);
		assertGivenUp(run);
		assertThat(run.lines()).anyMatch((line) -> line.startsWith("INTERRUPTED "));
	}

	@Test
	void completableFutureOutlastingTheDrainFailsWithLockLostException() throws Exception {
		Run run = run("exceeded future", List.of("--work=future-boot", "--work-millis=4000",
				"--spring.lifecycle.timeout-per-shutdown-phase=2s",
				"--spring.task.execution.shutdown.await-termination=true",
				"--spring.task.execution.shutdown.await-termination-period=20s"), null);
		assertGivenUp(run);
		assertThat(run.line("RESULT ")).endsWith(" failed LockLostException");
		assertThat(run.micros("HELD_FALSE ")).as("the job saw the loss: %s", run).isPositive();
	}

	@Test
	void controlWithoutTheDrainTheProbeTakesTheLockWhileTheJobRuns() throws Exception {
		Run run = run("control", executorSettings("async", true, "--inject-executor=true", "--control"), null);
		assertThat(run.probeGot()).as("the probe got the lock before the job ended: %s", run)
			.isLessThan(run.micros("END "));
		System.out.printf("SHUTDOWN control: the probe got the lock %.1f ms before the job ended%n",
				(run.micros("END ") - run.probeGot()) / 1000.0);
		// the client closed under the job, and its session with it: the engine says so once it first sees the closed
		// client, at the job's release or its hold's watch, whichever comes first
		assertThat(run.line("LOST ")).as("%s", run).contains("reason=SESSION_LOST");
		assertThat(run.micros("LOST ")).as("%s", run).isGreaterThan(run.micros("CLIENT_CLOSING "));
	}

	// Boot's executor created before zk-lock's client, so destroyed after it: the order that was unsafe
	private static List<String> asyncSettings(boolean awaitTermination) {
		return executorSettings("async", awaitTermination, "--inject-executor=true");
	}

	private static List<String> executorSettings(String work, boolean awaitTermination, String... more) {
		List<String> settings = new ArrayList<>(List.of("--work=" + work,
				"--spring.task.execution.shutdown.await-termination=" + awaitTermination,
				"--spring.task.execution.shutdown.await-termination-period=20s"));
		settings.addAll(List.of(more));
		return settings;
	}

	// The job ended while held, before the probe got the lock, and nothing was lost or logged as an error
	private static void assertDrained(Run run) throws IOException {
		assertThat(run.line("END ")).as("%s", run).endsWith("held=true");
		assertThat(run.micros("CLOSING ")).as("the shutdown began while the job ran: %s", run)
			.isLessThan(run.micros("END "));
		System.out.printf("SHUTDOWN %s: the probe got the lock %.1f ms after the job ended%n", run.name(),
				(run.probeGot() - run.micros("END ")) / 1000.0);
		assertThat(run.probeGot()).as("the probe got the lock after the job ended: %s", run)
			.isGreaterThan(run.micros("END "));
		assertThat(run.lines()).as("%s", run).noneMatch((line) -> line.startsWith("LOST "));
		assertThat(run.errors()).as("errors logged by %s", run).isEmpty();
	}

	// Given up with reason SHUTDOWN before the client closed and before the probe got it, isHeld() false since
	private static void assertGivenUp(Run run) throws IOException {
		// the job's own LockLostException (zk-lock.lost-lock-action=THROW) may reach the @Async handler, nothing else
		String lost = run.line("LOST ");
		assertThat(lost).as("%s", run).contains("reason=SHUTDOWN");
		long lostAt = run.micros("LOST ");
		System.out.printf("SHUTDOWN %s: given up %.1f ms after the job started, announced %.1f ms before the client "
				+ "closed and %.1f ms before the probe got the lock%n", run.name(), (lostAt - run.micros("START ")) / 1000.0,
				(run.micros("CLIENT_CLOSING ") - lostAt) / 1000.0, (run.probeGot() - lostAt) / 1000.0);
		assertThat(lostAt).as("announced before the client closed: %s", run).isLessThan(run.micros("CLIENT_CLOSING "));
		assertThat(run.probeGot()).as("the probe got the lock after the announcement: %s", run).isGreaterThan(lostAt);
		assertThat(run.line("END ")).as("%s", run).endsWith("held=false");
		assertThat(run.lines()).as("held again after the loss: %s", run).noneMatch((line) -> line.startsWith("HELD_TRUE"));
		assertThat(run.errors()).as("errors logged by %s", run)
			.allMatch((line) -> line.contains("SimpleAsyncUncaughtExceptionHandler"));
	}

	private static Run run(String name, List<String> settings, Path javaHome) throws Exception {
		return run(lane, name, settings, javaHome);
	}

	private static Run run(Lane lane, String name, List<String> settings, Path javaHome) throws Exception {
		int number = runs.incrementAndGet();
		String id = "run" + number;
		OutputLines lines = new OutputLines();
		JvmProcess worker = application(lane.basePath(), name, number, settings, javaHome, lines);
		worker.start();
		CompletableFuture<String> response = CompletableFuture.completedFuture("none");
		if (settings.contains("--work=http")) {
			String ready = lines.awaitLine(worker, "READY ", STEP);
			String port = ready.substring(ready.indexOf("port=") + "port=".length());
			response = HttpClient.newHttpClient()
				.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/work")).build(),
						HttpResponse.BodyHandlers.ofString())
				.thenApply((answer) -> answer.statusCode() + " " + answer.body());
		}
		lines.awaitLine(worker, "START ", STEP);
		lane.probe().send("probe " + id);
		lane.probeLines().awaitLine(lane.probe(), "PROBING " + id + " ", STEP);
		if (settings.contains("--work=refresh")) {
			worker.send("restart");
			lines.awaitLine(worker, "RESTARTED ", STEP);
		}
		int status = worker.terminate(STEP);
		assertThat(status).as("exit status of %s: %s", name, worker.diagnostics()).isNotNegative();
		String got = lane.probeLines().awaitLine(lane.probe(), "PROBE_GOT " + id + " ", STEP);
		long probeGot = Long.parseLong(got.split(" ")[2]);
		return new Run(name, worker, lines, probeGot, response);
	}

	private static JvmProcess application(String basePath, String name, int number, List<String> settings,
			Path javaHome, OutputLines lines) {
		JvmProcess.Builder builder = JvmProcess.builder("Shutdown " + name, ShutdownDrainApplication.class.getName())
			.directory(directory)
			.logFileName("shutdown-" + name.replace(' ', '-') + "-" + number + ".log")
			.arguments(Stream.concat(Stream.of("--zk-lock.connect-string=" + zookeeper.connectString(),
					"--zk-lock.base-path=" + basePath, "--zk-lock.session-timeout=10s"), settings.stream()).toList())
			.jvmOptions(List.of("-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k"))
			.outputListener(lines);
		if (javaHome != null) {
			builder.javaHome(javaHome);
		}
		return builder.build();
	}

	/**
	 * A probe and the base path that the runs it watches lock under.
	 */
	private record Lane(String basePath, JvmProcess probe, OutputLines probeLines) {

		static Lane start(String name) {
			String basePath = "/shutdown/" + UUID.randomUUID();
			OutputLines probeLines = new OutputLines();
			JvmProcess probe = application(basePath, name, runs.get(), List.of("--probe"), null, probeLines);
			probe.start();
			probeLines.awaitLine(probe, "PROBE_READY ", STEP);
			return new Lane(basePath, probe, probeLines);
		}

	}

	/**
	 * What one run printed.
	 */
	private record Run(String name, JvmProcess worker, OutputLines output, long probeGot,
			CompletableFuture<String> response) {

		List<String> lines() {
			return this.output.lines();
		}

		String line(String prefix) {
			return lines().stream()
				.filter((line) -> line.startsWith(prefix))
				.findFirst()
				.orElseThrow(() -> new AssertionError(this.name + " printed no '" + prefix + "' line: " + this + "; "
						+ this.worker.diagnostics()));
		}

		long micros(String prefix) {
			Matcher matcher = MICROS.matcher(line(prefix));
			assertThat(matcher.find()).isTrue();
			return Long.parseLong(matcher.group(1));
		}

		List<String> errors() throws IOException {
			try (Stream<String> log = Files.lines(this.worker.logFile())) {
				return log.filter((line) -> line.contains(" ERROR ") || line.startsWith("Exception in thread"))
					.toList();
			}
		}

		@Override
		public String toString() {
			return this.name + " (probe got the lock at " + this.probeGot + "): "
					+ String.join(" | ", lines().stream().filter((line) -> !line.startsWith("20")).toList());
		}

	}

}
