package dev.zklock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One ZooKeeper server in its own JVM, launched with the test JVM's java binary and
 * class path. Its output goes to a log file; it halts when the test JVM goes away (see
 * {@link ParentWatchdog}).
 */
final class ServerProcess {

	/**
	 * JVM options used when a fixture is given none: a small heap and a quick start.
	 */
	static final List<String> DEFAULT_JVM_OPTIONS = List.of("-Xmx96m", "-Xss512k", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData");

	private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(15);

	private static final int LOG_TAIL_LINES = 40;

	private static final Set<ServerProcess> running = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(() -> running.forEach(ServerProcess::kill), "zookeeper-process-reaper"));
	}

	private final String name;

	private final String mainClass;

	private final Path configFile;

	private final Path logFile;

	private final Path logbackConfigFile;

	private final List<String> jvmOptions;

	private final Map<String, String> systemProperties;

	private volatile Process process;

	private volatile boolean paused;

	ServerProcess(String name, String mainClass, Path directory, List<String> jvmOptions,
			Map<String, String> systemProperties) {
		this.name = name;
		this.mainClass = mainClass;
		this.configFile = directory.resolve("zoo.cfg");
		this.logFile = directory.resolve("server.log");
		this.logbackConfigFile = directory.resolve("logback.xml");
		this.jvmOptions = List.copyOf(jvmOptions);
		this.systemProperties = Map.copyOf(systemProperties);
		writeLogbackConfig();
	}

	Path configFile() {
		return this.configFile;
	}

	Path logFile() {
		return this.logFile;
	}

	synchronized void start() {
		if (isAlive()) {
			throw new IllegalStateException(this.name + " is already running (pid " + pid() + "); kill or stop it first");
		}
		List<String> command = new ArrayList<>();
		command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(this.jvmOptions);
		command.add("-Dlogback.configurationFile=" + this.logbackConfigFile);
		command.add("-Dzookeeper.jmx.log4j.disable=true");
		command.add("-Dzookeeper.admin.enableServer=false");
		this.systemProperties.forEach((key, value) -> command.add("-D" + key + "=" + value));
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(ParentWatchdog.class.getName());
		command.add(this.mainClass);
		command.add(this.configFile.toString());
		try {
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(Redirect.appendTo(this.logFile.toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not launch " + this.name + ": " + command, ex);
		}
		this.paused = false;
		running.add(this);
	}

	/**
	 * Kill the process with SIGKILL ({@code kill -9}) and wait until it has gone.
	 */
	synchronized void kill() {
		Process current = this.process;
		if (current != null) {
			current.destroyForcibly();
			awaitExit(current);
		}
		this.paused = false;
		running.remove(this);
	}

	/**
	 * Stop the process with SIGTERM and wait until it has gone; kill it when it does not
	 * exit in time.
	 */
	synchronized void stop() {
		Process current = this.process;
		if (current != null && current.isAlive()) {
			if (this.paused) {
				resume();
			}
			current.destroy();
			try {
				if (!current.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
					current.destroyForcibly();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		kill();
	}

	/**
	 * Freeze the process with SIGSTOP. Its sockets stay open but it answers nothing.
	 */
	synchronized void pause() {
		requireAlive("pause");
		signal("STOP");
		this.paused = true;
	}

	/**
	 * Let a paused process go on with SIGCONT.
	 */
	synchronized void resume() {
		requireAlive("resume");
		signal("CONT");
		this.paused = false;
	}

	boolean isAlive() {
		Process current = this.process;
		return current != null && current.isAlive();
	}

	boolean isPaused() {
		return this.paused && isAlive();
	}

	long pid() {
		Process current = this.process;
		if (current == null) {
			throw new IllegalStateException(this.name + " has never been started");
		}
		return current.pid();
	}

	/**
	 * Throw when the process has exited on its own, so that a wait for it ends at once.
	 * @throws IllegalStateException when the process has exited
	 */
	void requireNotExited() {
		Process current = this.process;
		if (current != null && !current.isAlive()) {
			throw new IllegalStateException("ZooKeeper server exited: " + diagnostics());
		}
	}

	/**
	 * Describe the process for an error message: its state and the end of its log.
	 * @return the description
	 */
	String diagnostics() {
		Process current = this.process;
		String state = (current == null) ? "never started"
				: current.isAlive() ? "running as pid " + current.pid()
						: "exited with status " + current.exitValue();
		return this.name + " is " + state + "; last lines of " + this.logFile + ":\n" + logTail();
	}

	private String logTail() {
		try {
			List<String> lines = Files.readAllLines(this.logFile, StandardCharsets.UTF_8);
			return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	@Override
	public String toString() {
		return this.name;
	}

	private void requireAlive(String action) {
		if (!isAlive()) {
			throw new IllegalStateException("Cannot " + action + " " + this.name + ": it is not running");
		}
	}

	private void signal(String signal) {
		long pid = pid();
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true)
				.start();
			String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			if (kill.waitFor() != 0) {
				throw new IllegalStateException(
						"'kill -" + signal + " " + pid + "' failed for " + this.name + ": " + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run 'kill -" + signal + " " + pid + "' for " + this.name, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while signalling " + this.name, ex);
		}
	}

	private void awaitExit(Process current) {
		try {
			if (!current.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException(this.name + " (pid " + current.pid() + ") did not exit within "
						+ EXIT_TIMEOUT.toSeconds() + " s of SIGKILL");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for " + this.name + " to exit", ex);
		}
	}

	private void writeLogbackConfig() {
		String config = """
				<configuration>
					<appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
						<encoder>
							<pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern>
						</encoder>
					</appender>
					<root level="INFO">
						<appender-ref ref="OUT"/>
					</root>
				</configuration>
				""";
		try {
			Files.writeString(this.logbackConfigFile, config, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write " + this.logbackConfigFile, ex);
		}
	}

}
