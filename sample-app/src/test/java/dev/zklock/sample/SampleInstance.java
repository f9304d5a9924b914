package dev.zklock.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

import dev.zklock.testsupport.FreePorts;
import dev.zklock.testsupport.ParentWatchdog;

/**
 * One sample instance in its own JVM, launched from the test class path
 * ({@code java -cp ... SampleApplication}) on a free port of 127.0.0.1. Its output goes
 * to a log file. It can be frozen with SIGSTOP and resumed with SIGCONT, and it halts
 * when the test JVM goes away.
 */
final class SampleInstance implements AutoCloseable {

	private static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-Xss512k", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Dh2.bindAddress=127.0.0.1");

	private static final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(2))
		.build();

	private final String name;

	private final int port;

	private final Path logFile;

	private final Process process;

	private SampleInstance(String name, int port, Path logFile, Process process) {
		this.name = name;
		this.port = port;
		this.logFile = logFile;
		this.process = process;
	}

	/**
	 * Launch an instance; call {@link #awaitReady(Duration)} before using it.
	 * @param name a name for messages and the log file
	 * @param directory where the log file goes
	 * @param arguments the application's arguments, such as {@code --zk-lock.connect-string=...}
	 * @return the instance
	 */
	static SampleInstance launch(String name, Path directory, List<String> arguments) {
		int port = FreePorts.next();
		Path logFile = directory.resolve(name + ".log");
		List<String> command = new ArrayList<>();
		command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(JVM_OPTIONS);
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(ParentWatchdog.class.getName());
		command.add(SampleApplication.class.getName());
		command.add("--server.address=127.0.0.1");
		command.add("--server.port=" + port);
		command.addAll(arguments);
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(Redirect.appendTo(logFile.toFile()))
				.start();
			return new SampleInstance(name, port, logFile, process);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not launch sample instance " + name + ": " + command, ex);
		}
	}

	/**
	 * Wait until the instance answers {@code /actuator/health} with 200.
	 * @param timeout the longest wait
	 */
	void awaitReady(Duration timeout) {
		try {
			Awaitility.await(this.name + " to be ready on " + baseUri())
				.atMost(timeout)
				.pollInterval(Duration.ofMillis(250))
				.until(() -> {
					requireAlive();
					return healthStatus() == 200;
				});
		}
		catch (ConditionTimeoutException ex) {
			throw new IllegalStateException(diagnostics(), ex);
		}
	}

	/**
	 * The base URI, {@code http://127.0.0.1:port}.
	 * @return the URI
	 */
	URI baseUri() {
		return URI.create("http://127.0.0.1:" + this.port);
	}

	/**
	 * Freeze the process with SIGSTOP, as in a long GC pause: its sockets stay open but
	 * it answers nothing and sends no ZooKeeper heartbeats.
	 */
	void pause() {
		signal("STOP");
	}

	/**
	 * Let a frozen process go on with SIGCONT.
	 */
	void resume() {
		signal("CONT");
	}

	/**
	 * Wait for a log line that contains a text.
	 * @param text the text
	 * @param timeout the longest wait
	 * @return the first such line
	 */
	String awaitLogLine(String text, Duration timeout) {
		try {
			return Awaitility.await(this.name + " to log '" + text + "'")
				.atMost(timeout)
				.pollInterval(Duration.ofMillis(20))
				.until(() -> {
					requireAlive();
					return findLogLine(text);
				}, Optional::isPresent)
				.get();
		}
		catch (ConditionTimeoutException ex) {
			throw new IllegalStateException(diagnostics(), ex);
		}
	}

	/**
	 * The first log line that contains a text.
	 * @param text the text
	 * @return the line, if any
	 */
	Optional<String> findLogLine(String text) {
		return log().lines().filter((line) -> line.contains(text)).findFirst();
	}

	/**
	 * The state of the process and the end of its log, for failure messages.
	 * @return the description
	 */
	String diagnostics() {
		String state = this.process.isAlive() ? "running as pid " + this.process.pid()
				: "exited with status " + this.process.exitValue();
		List<String> lines = log().lines().toList();
		return this.name + " on " + baseUri() + " is " + state + "; last lines of " + this.logFile + ":\n"
				+ String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
	}

	@Override
	public void close() {
		if (this.process.isAlive()) {
			signal("CONT");
			this.process.destroy();
			try {
				if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
					this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.process.destroyForcibly();
			}
		}
	}

	@Override
	public String toString() {
		return this.name + "[" + baseUri() + "]";
	}

	private int healthStatus() {
		try {
			HttpRequest request = HttpRequest.newBuilder(baseUri().resolve("/actuator/health"))
				.timeout(Duration.ofSeconds(2))
				.build();
			return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
		}
		catch (IOException ex) {
			return -1;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return -1;
		}
	}

	private void requireAlive() {
		if (!this.process.isAlive()) {
			throw new IllegalStateException("Sample instance exited: " + diagnostics());
		}
	}

	private String log() {
		try {
			return Files.readString(this.logFile, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	private void signal(String signal) {
		long pid = this.process.pid();
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true)
				.start();
			String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			if (kill.waitFor() != 0) {
				throw new IllegalStateException("'kill -" + signal + " " + pid + "' failed for " + this + ": " + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run 'kill -" + signal + " " + pid + "' for " + this, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while signalling " + this, ex);
		}
	}

}
