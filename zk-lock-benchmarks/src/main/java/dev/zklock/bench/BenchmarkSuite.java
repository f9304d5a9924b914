package dev.zklock.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import dev.zklock.testsupport.FourLetterWords;
import dev.zklock.testsupport.ZooKeeperProcess;

/**
 * Runs every benchmark in one JMH run against one ZooKeeper server in its own
 * JVM, and writes {@code jmh-result.json} and {@code run-info.json} (machine,
 * load, versions) for {@code bench_report.py}.
 * <p>
 * The server is the test fixture {@link ZooKeeperProcess} with ZooKeeper's
 * defaults (forceSync on, tick time 2 s, container sweep every minute), given a
 * server-sized heap and the JIT compiler a server would run with.
 * <p>
 * Arguments: the output directory and {@code full} or {@code quick} (1 × 1 s
 * warm-up, 2 × 1 s measured, 1,000 keys), optionally followed by regular
 * expressions of the benchmarks to run, {@code prof=NAME[:OPTIONS]} for more
 * JMH profilers (such as {@code prof=jfr:dir=target/jfr}) and
 * {@code param=NAME=VALUE[,VALUE...]} for the values of a benchmark parameter (such
 * as {@code param=limits=16/50,32/50} for the hot-key bounds). The hot-key rows
 * (classes {@code HotKey*}) run only when a filter names them, such as
 * {@code full HotKey}, so that they add nothing to the other runs.
 */
public final class BenchmarkSuite {

	private static final List<String> SERVER_JVM_OPTIONS = List.of("-Xms512m", "-Xmx512m");

	private static final String HOT_KEY_ROWS = "HotKey";

	/**
	 * A lock cycle waits for a disk sync, so a fork runs only about a thousand cycles
	 * a second: the JIT compiles after a tenth of its usual invocation counts, so
	 * that the lock path is compiled within the warm-up. Every row gets the same.
	 */
	static final String COMPILE_THRESHOLD_SCALING = "-XX:CompileThresholdScaling=0.1";

	private BenchmarkSuite() {
	}

	/**
	 * Run the suite.
	 * @param args output directory, mode and filters
	 * @throws Exception when the server or a benchmark fails
	 */
	public static void main(String[] args) throws Exception {
		Path output = Path.of(args[0]);
		List<String> mode = Arrays.stream(args).skip(1).flatMap((arg) -> Arrays.stream(arg.trim().split("\\s+")))
			.filter((arg) -> !arg.isEmpty())
			.toList();
		boolean quick = !mode.isEmpty() && mode.get(0).equals("quick");
		List<String> rest = mode.stream().skip(mode.isEmpty() ? 0 : 1).toList();
		List<String> filters = rest.stream().filter((arg) -> !arg.startsWith("prof=") && !arg.startsWith("param="))
			.toList();
		List<String> profilers = rest.stream().filter((arg) -> arg.startsWith("prof=")).map((arg) -> arg.substring(5))
			.toList();
		List<String> params = rest.stream().filter((arg) -> arg.startsWith("param=")).map((arg) -> arg.substring(6))
			.toList();
		Files.createDirectories(output);
		RunInfo info = RunInfo.start(quick ? "quick" : "full");
		// wchs and wchc count the watches of the hot-key waiters
		try (ZooKeeperProcess server = ZooKeeperProcess.builder()
			.jvmOptions(SERVER_JVM_OPTIONS)
			.setting("4lw.commands.whitelist", FourLetterWords.WHITELIST + ",wchs,wchc")
			.start()) {
			info.zooKeeper(server.connectString());
			ChainedOptionsBuilder options = new OptionsBuilder()
				.addProfiler(GCProfiler.class)
				.addProfiler(ZooKeeperOpsProfiler.class)
				.jvmArgsAppend("-Xms1g", "-Xmx1g", COMPILE_THRESHOLD_SCALING,
						"-D" + BenchContext.CONNECT_PROPERTY + "=" + server.connectString())
				.resultFormat(ResultFormatType.JSON)
				.result(output.resolve("jmh-result.json").toString())
				.shouldFailOnError(true);
			if (filters.isEmpty()) {
				options.include(BenchmarkSuite.class.getPackageName() + "\\..*");
			}
			filters.forEach(options::include);
			// the hot-key rows take 12 minutes of their own: only when asked for by name
			if (filters.stream().noneMatch((filter) -> filter.contains(HOT_KEY_ROWS))) {
				options.exclude("\\." + HOT_KEY_ROWS);
			}
			for (String profiler : profilers) {
				int colon = profiler.indexOf(':');
				if (colon < 0) {
					options.addProfiler(profiler);
				}
				else {
					options.addProfiler(profiler.substring(0, colon), profiler.substring(colon + 1));
				}
			}
			for (String param : params) {
				int equals = param.indexOf('=');
				options.param(param.substring(0, equals), param.substring(equals + 1).split(","));
			}
			if (quick) {
				options.warmupIterations(1)
					.warmupTime(TimeValue.seconds(1))
					.measurementIterations(2)
					.measurementTime(TimeValue.seconds(1))
					.param("keys", "1000");
			}
			new Runner(options.build()).run();
		}
		info.finish(Instant.now());
		info.write(output.resolve("run-info.json"));
	}

}
