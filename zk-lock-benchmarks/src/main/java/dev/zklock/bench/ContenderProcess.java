package dev.zklock.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A running {@link Contender} JVM.
 */
final class ContenderProcess implements AutoCloseable {

	private final Process process;

	private final Path log;

	private ContenderProcess(Process process, Path log) {
		this.process = process;
		this.log = log;
	}

	/**
	 * Start a contender whose threads follow the turn posted on the
	 * {@link HandoffBoard}, and wait until they run.
	 * @param contestants how it locks, by turn
	 * @param threads how many threads it runs
	 * @param limits the bounds of its tenures with local hand-off ({@link HotKeys#limit})
	 * @return the running contender
	 * @throws Exception when it does not start within two minutes
	 */
	static ContenderProcess start(List<Contestant> contestants, int threads, String limits) throws Exception {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Path log = Files.createTempFile("zk-lock-contender", ".log");
		String names = contestants.stream().map(Contestant::name).collect(Collectors.joining(","));
		Process process = new ProcessBuilder(java, "-Xms512m", "-Xmx512m", BenchmarkSuite.COMPILE_THRESHOLD_SCALING, "-cp", System.getProperty("java.class.path"),
				"-D" + BenchContext.CONNECT_PROPERTY + "=" + BenchContext.connectString(),
				"-D" + HandoffBoard.FILE_PROPERTY + "=" + HandoffBoard.shared().file(), Contender.class.getName(),
				names, Integer.toString(threads), limits)
			.redirectError(log.toFile())
			.start();
		ContenderProcess contender = new ContenderProcess(process, log);
		BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
		CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
			try {
				// log lines may come first when a logging backend writes to the console
				String line = out.readLine();
				while (line != null && !"ready".equals(line)) {
					line = out.readLine();
				}
				return line;
			}
			catch (IOException ex) {
				return null;
			}
		});
		String line = ready.get(120, TimeUnit.SECONDS);
		if (!"ready".equals(line)) {
			contender.close();
			throw new IllegalStateException("Contender JVM did not start; see " + log);
		}
		return contender;
	}

	@Override
	public void close() throws Exception {
		this.process.getOutputStream().close();
		if (!this.process.waitFor(120, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
			throw new IllegalStateException("Contender JVM did not stop; see " + this.log);
		}
		if (this.process.exitValue() != 0) {
			throw new IllegalStateException("Contender JVM failed with " + this.process.exitValue() + "; see "
					+ this.log);
		}
		if (Files.size(this.log) > 0 && Files.readString(this.log).contains("Exception")) {
			throw new IllegalStateException("Contender JVM threads failed; see " + this.log);
		}
		Files.delete(this.log);
	}

}
