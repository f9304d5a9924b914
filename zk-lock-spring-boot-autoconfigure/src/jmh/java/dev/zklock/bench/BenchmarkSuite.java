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

/**
 * Runs every benchmark in one JMH run against one ZooKeeper server in its own
 * JVM, and writes {@code jmh-result.json} and {@code run-info.json} (machine,
 * load, versions) for {@code bench_report.py}.
 * <p>
 * Arguments: the output directory, the working directory for the server, and
 * {@code full} or {@code quick} (1 × 1 s warm-up, 2 × 1 s measured, 1,000 keys),
 * optionally followed by regular expressions of the benchmarks to run.
 */
public final class BenchmarkSuite {

	private BenchmarkSuite() {
	}

	/**
	 * Run the suite.
	 * @param args output directory, working directory, mode and filters
	 * @throws Exception when the server or a benchmark fails
	 */
	public static void main(String[] args) throws Exception {
		Path output = Path.of(args[0]);
		Path work = Path.of(args[1]);
		List<String> mode = Arrays.stream(args).skip(2).flatMap((arg) -> Arrays.stream(arg.trim().split("\\s+")))
			.filter((arg) -> !arg.isEmpty())
			.toList();
		boolean quick = !mode.isEmpty() && mode.get(0).equals("quick");
		List<String> filters = mode.stream().skip(mode.isEmpty() ? 0 : 1).toList();
		Files.createDirectories(output);
		Files.createDirectories(work);
		RunInfo info = RunInfo.start(quick ? "quick" : "full");
		try (ZooKeeperServerProcess server = ZooKeeperServerProcess.start(work)) {
			info.zooKeeper(server.connectString());
			ChainedOptionsBuilder options = new OptionsBuilder()
				.addProfiler(GCProfiler.class)
				.addProfiler(ZooKeeperOpsProfiler.class)
				.jvmArgsAppend("-Xms1g", "-Xmx1g", "-D" + BenchContext.CONNECT_PROPERTY + "=" + server.connectString())
				.resultFormat(ResultFormatType.JSON)
				.result(output.resolve("jmh-result.json").toString())
				.shouldFailOnError(true);
			if (filters.isEmpty()) {
				options.include(BenchmarkSuite.class.getPackageName() + "\\..*");
			}
			filters.forEach(options::include);
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
