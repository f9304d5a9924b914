package dev.zklock.testsupport;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * A main class run in its own JVM, launched with the test JVM's java binary and class
 * path (less the entries left out with {@link Builder#classPathWithout(String...)}): a
 * ZooKeeper server for the fixtures, or a worker that takes locks. Its output
 * goes to a log file (and, when a listener is set, line by line to the listener); it
 * halts when the test JVM goes away (see {@link ParentWatchdog}), and reads the lines
 * sent with {@link #send(String)} from {@link ParentWatchdog#commands()}.
 * <p>
 * The process can be killed ({@code kill -9}), paused ({@code SIGSTOP}), resumed
 * ({@code SIGCONT}) and started again. Pause and resume use the {@code kill} command, so
 * they need a Unix-like system.
 *
 * <pre class="code">
 * JvmProcess worker = JvmProcess.builder("worker 1", Worker.class.getName())
 *     .directory(directory).arguments(List.of("--id=1")).outputListener(events::add).build();
 * worker.start();
 * worker.send("run");
 * </pre>
 */
public final class JvmProcess {

	/**
	 * JVM options used when none are given: a small heap and a quick start.
	 */
	public static final List<String> DEFAULT_JVM_OPTIONS = List.of("-Xmx96m", "-Xss512k", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData");

	private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(15);

	private static final int LOG_TAIL_LINES = 40;

	private static final Set<JvmProcess> running = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(() -> running.forEach(JvmProcess::kill), "jvm-process-reaper"));
	}

	private final String name;

	private final String mainClass;

	private final List<String> arguments;

	private final Path logFile;

	private final Path logbackConfigFile;

	private final List<String> jvmOptions;

	private final Map<String, String> systemProperties;

	private final @Nullable Consumer<String> outputListener;

	private final Map<String, String> environment;

	private final Path javaHome;

	private final List<String> classPathExclusions;

	private final @Nullable Integer uid;

	private volatile @Nullable Process process;

	private volatile @Nullable BufferedWriter input;

	private volatile boolean paused;

	private JvmProcess(Builder builder) {
		if (builder.directory == null) {
			throw new IllegalStateException("No directory for " + builder.name + ": call directory(Path) on the builder");
		}
		this.name = builder.name;
		this.mainClass = builder.mainClass;
		this.arguments = List.copyOf(builder.arguments);
		this.logFile = builder.directory.resolve(builder.logFileName);
		this.logbackConfigFile = builder.directory.resolve("logback.xml");
		this.jvmOptions = List.copyOf(builder.jvmOptions);
		this.systemProperties = Map.copyOf(builder.systemProperties);
		this.outputListener = builder.outputListener;
		this.environment = Map.copyOf(builder.environment);
		this.classPathExclusions = List.copyOf(builder.classPathExclusions);
		this.javaHome = (builder.javaHome != null) ? builder.javaHome : Paths.get(System.getProperty("java.home"));
		this.uid = builder.uid;
		writeLogbackConfig(builder.rootLogLevel);
	}

	/**
	 * A builder of a process that runs the given main class.
	 * @param name the name used in logs and error messages
	 * @param mainClass the main class, on the test class path
	 * @return the builder
	 */
	public static Builder builder(String name, String mainClass) {
		return new Builder(name, mainClass);
	}

	/**
	 * The file that receives the process's output, appended to across restarts.
	 * @return the log file
	 */
	public Path logFile() {
		return this.logFile;
	}

	/**
	 * Launch the process. Does not wait for it to be ready.
	 * @throws IllegalStateException when it is already running
	 */
	public synchronized void start() {
		if (isAlive()) {
			throw new IllegalStateException(this.name + " is already running (pid " + pid() + "); kill or stop it first");
		}
		List<String> command = new ArrayList<>();
		if (this.uid != null) {
			// reading the class path and writing data directories must not depend on modes
			String capabilities = "+dac_override,+dac_read_search";
			command.addAll(List.of("setpriv", "--reuid=" + this.uid, "--regid=" + this.uid, "--clear-groups",
					"--inh-caps=" + capabilities, "--ambient-caps=" + capabilities));
		}
		command.add(this.javaHome.resolve("bin").resolve("java").toString());
		command.addAll(this.jvmOptions);
		command.add("-Dlogback.configurationFile=" + this.logbackConfigFile);
		command.add("-Dzookeeper.jmx.log4j.disable=true");
		command.add("-Dzookeeper.admin.enableServer=false");
		this.systemProperties.forEach((key, value) -> command.add("-D" + key + "=" + value));
		command.add("-cp");
		command.add(classPath());
		command.add(ParentWatchdog.class.getName());
		command.add(this.mainClass);
		command.addAll(this.arguments);
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().putAll(this.environment);
		if (this.outputListener == null) {
			builder.redirectOutput(Redirect.appendTo(this.logFile.toFile()));
		}
		Process started;
		try {
			started = builder.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not launch " + this.name + ": " + command, ex);
		}
		this.process = started;
		this.input = new BufferedWriter(new OutputStreamWriter(started.getOutputStream(), StandardCharsets.UTF_8));
		Consumer<String> listener = this.outputListener;
		if (listener != null) {
			Thread pump = new Thread(() -> pumpOutput(started, listener), this.name + " output");
			pump.setDaemon(true);
			pump.start();
		}
		this.paused = false;
		running.add(this);
	}

	/**
	 * Send one line to the process's standard input; the process reads it from
	 * {@link ParentWatchdog#commands()}.
	 * @param line the line, without a line break
	 * @throws IllegalStateException when the process is not running or the line
	 * cannot be written
	 */
	public void send(String line) {
		if (line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0) {
			throw new IllegalArgumentException("A command is one line; got " + line);
		}
		BufferedWriter writer = this.input;
		if (writer == null || !isAlive()) {
			throw new IllegalStateException("Cannot send '" + line + "' to " + this.name + ": it is not running");
		}
		try {
			synchronized (writer) {
				writer.write(line);
				writer.newLine();
				writer.flush();
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not send '" + line + "' to " + this.name + ": " + ex, ex);
		}
	}

	/**
	 * Kill the process with SIGKILL ({@code kill -9}) and wait until it has gone.
	 */
	public synchronized void kill() {
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
	public synchronized void stop() {
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
	 * Shut the process down as an orchestrator does: SIGTERM only, with its standard
	 * streams left open (unlike {@link #stop()}, whose {@code Process.destroy()} also
	 * closes standard input, which makes {@link ParentWatchdog} halt the process before
	 * its shutdown hooks have run), then wait for it to exit.
	 * @param timeout the longest wait; the process is killed when it has not exited by
	 * then
	 * @return the exit status, or -1 when it had to be killed
	 */
	public int terminate(Duration timeout) {
		synchronized (this) {
			requireAlive("terminate");
			if (this.paused) {
				resume();
			}
			signal("TERM");
		}
		return awaitExit(timeout);
	}

	/**
	 * Wait for the process to exit on its own, such as after a command that ends it;
	 * kill it when it does not exit in time.
	 * @param timeout the longest wait
	 * @return the exit status, or -1 when it had to be killed
	 */
	public int awaitExit(Duration timeout) {
		Process current = this.process;
		if (current == null) {
			throw new IllegalStateException(this.name + " has never been started");
		}
		try {
			if (current.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				running.remove(this);
				return current.exitValue();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		kill();
		return -1;
	}

	/**
	 * Freeze the process with SIGSTOP. Its sockets stay open but it answers nothing.
	 */
	public synchronized void pause() {
		requireAlive("pause");
		signal("STOP");
		this.paused = true;
	}

	/**
	 * Let a paused process go on with SIGCONT.
	 */
	public synchronized void resume() {
		requireAlive("resume");
		signal("CONT");
		this.paused = false;
	}

	/**
	 * Whether the process is alive, paused or not.
	 * @return whether it is alive
	 */
	public boolean isAlive() {
		Process current = this.process;
		return current != null && current.isAlive();
	}

	/**
	 * Whether the process is paused.
	 * @return whether it is paused
	 */
	public boolean isPaused() {
		return this.paused && isAlive();
	}

	/**
	 * The process id, the current one after a restart.
	 * @return the pid
	 */
	public long pid() {
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
	public void requireNotExited() {
		Process current = this.process;
		if (current != null && !current.isAlive()) {
			throw new IllegalStateException(this.name + " exited: " + diagnostics());
		}
	}

	/**
	 * Describe the process for an error message: its state and the end of its log.
	 * @return the description
	 */
	public String diagnostics() {
		Process current = this.process;
		String state = (current == null) ? "never started"
				: current.isAlive() ? "running as pid " + current.pid()
						: "exited with status " + current.exitValue();
		return this.name + " is " + state + "; last lines of " + this.logFile + ":\n" + logTail();
	}

	/**
	 * The class path of the process: the test JVM's, without the entries whose file
	 * name contains one of the {@link Builder#classPathWithout(String...) excluded}
	 * fragments.
	 * @return the class path
	 */
	String classPath() {
		return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !isExcluded(entry))
			.collect(Collectors.joining(File.pathSeparator));
	}

	private boolean isExcluded(String classPathEntry) {
		Path fileName = Paths.get(classPathEntry).getFileName();
		return fileName != null && this.classPathExclusions.stream().anyMatch(fileName.toString()::contains);
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

	private void pumpOutput(Process source, Consumer<String> listener) {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(source.getInputStream(), StandardCharsets.UTF_8));
				BufferedWriter log = Files.newBufferedWriter(this.logFile, StandardCharsets.UTF_8,
						StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
			String line;
			while ((line = reader.readLine()) != null) {
				log.write(line);
				log.newLine();
				log.flush();
				try {
					listener.accept(line);
				}
				catch (RuntimeException ex) {
					log.write("(output listener failed: " + ex + ")");
					log.newLine();
				}
			}
		}
		catch (IOException ex) {
			// the process went away
		}
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

	private void writeLogbackConfig(String rootLevel) {
		String config = """
				<configuration>
					<appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
						<encoder>
							<pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern>
						</encoder>
					</appender>
					<root level="LEVEL">
						<appender-ref ref="OUT"/>
					</root>
				</configuration>
				""".replace("LEVEL", rootLevel);
		try {
			Files.writeString(this.logbackConfigFile, config, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write " + this.logbackConfigFile, ex);
		}
	}

	/**
	 * Options of a process.
	 */
	public static final class Builder {

		private final String name;

		private final String mainClass;

		private @Nullable Path directory;

		private String logFileName = "process.log";

		private List<String> arguments = List.of();

		private List<String> jvmOptions = DEFAULT_JVM_OPTIONS;

		private final Map<String, String> systemProperties = new LinkedHashMap<>();

		private @Nullable Consumer<String> outputListener;

		private final Map<String, String> environment = new LinkedHashMap<>();

		private String rootLogLevel = "INFO";

		private final List<String> classPathExclusions = new ArrayList<>();

		private @Nullable Path javaHome;

		private @Nullable Integer uid;

		private Builder(String name, String mainClass) {
			this.name = name;
			this.mainClass = mainClass;
		}

		/**
		 * The directory that receives the log file and the logback configuration.
		 * @param directory an existing directory
		 * @return this builder
		 */
		public Builder directory(Path directory) {
			this.directory = directory;
			return this;
		}

		/**
		 * The name of the log file in the directory.
		 * @param logFileName the file name, {@code process.log} by default
		 * @return this builder
		 */
		public Builder logFileName(String logFileName) {
			this.logFileName = logFileName;
			return this;
		}

		/**
		 * The arguments of the main class.
		 * @param arguments the arguments
		 * @return this builder
		 */
		public Builder arguments(List<String> arguments) {
			this.arguments = List.copyOf(arguments);
			return this;
		}

		/**
		 * The JVM options, replacing the defaults ({@code -Xmx96m}, serial GC, C1 only).
		 * @param jvmOptions the options
		 * @return this builder
		 */
		public Builder jvmOptions(List<String> jvmOptions) {
			this.jvmOptions = List.copyOf(jvmOptions);
			return this;
		}

		/**
		 * Add system properties.
		 * @param properties the properties
		 * @return this builder
		 */
		public Builder systemProperties(Map<String, String> properties) {
			this.systemProperties.putAll(properties);
			return this;
		}

		/**
		 * Add environment variables to the inherited environment, such as secrets that
		 * must not show on the command line.
		 * @param variables the variables
		 * @return this builder
		 */
		public Builder environment(Map<String, String> variables) {
			this.environment.putAll(variables);
			return this;
		}

		/**
		 * Receive every line of output (standard output and error) as it comes, besides
		 * the log file. The listener runs on one thread per process.
		 * @param outputListener the listener
		 * @return this builder
		 */
		public Builder outputListener(Consumer<String> outputListener) {
			this.outputListener = outputListener;
			return this;
		}

		/**
		 * The level of the process's root logger.
		 * @param level a logback level, {@code INFO} by default
		 * @return this builder
		 */
		public Builder rootLogLevel(String level) {
			this.rootLogLevel = level;
			return this;
		}

		/**
		 * Leave out of the process's class path every entry whose file name contains one
		 * of the fragments, such as {@code "reactor-core"} for
		 * {@code reactor-core-3.8.7.jar}, to run it as an application without that
		 * library. A fragment that matches nothing leaves the class path as it is, so a
		 * process that relies on the library's absence should check it itself.
		 * @param fileNameFragments parts of the jar or directory names to leave out
		 * @return this builder
		 */
		public Builder classPathWithout(String... fileNameFragments) {
			this.classPathExclusions.addAll(List.of(fileNameFragments));
			return this;
		}

		/**
		 * Run the process as the given user and group id, through {@code setpriv}, so that
		 * a {@link LoopbackFirewall} can tell its packets apart. It keeps the right to
		 * read and write any file, as the test JVM's root user has. Needs root.
		 * @param uid the user id, which need not exist in {@code /etc/passwd}
		 * @return this builder
		 */
		public Builder runAs(int uid) {
			this.uid = uid;
			return this;
		}

		/**
		 * Create the process without starting it.
		 * @return the process
		 */
		/**
		 * The JDK or JRE that runs the process; by default the one running the tests.
		 * @param javaHome its home directory
		 * @return this builder
		 */
		public Builder javaHome(Path javaHome) {
			this.javaHome = javaHome;
			return this;
		}

		public JvmProcess build() {
			return new JvmProcess(this);
		}

	}

}
