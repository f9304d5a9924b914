package dev.zklock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

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
 * <p>
 * In this file: launching and sending a line, then ending the process (kill, stop,
 * terminate, wait for its exit), then pausing and resuming, then what it reports, and
 * last the {@link Builder}, whose options become a {@code JvmProcessOptions} value that
 * the log and the command line read.
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

	// how long an exited process's last output may take to reach the listener
	private static final Duration OUTPUT_END_TIMEOUT = Duration.ofSeconds(5);

	// a stop that takes longer is not load but something wrong
	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private final String name;

	private final ProcessLog log;

	private final JvmCommand command;

	private volatile @Nullable Process process;

	private volatile @Nullable ProcessInput input;

	private volatile boolean paused;

	private JvmProcess(JvmProcessOptions options) {
		this.name = options.name();
		this.log = new ProcessLog(options.directory(), options.logFileName(), options.rootLogLevel(),
				options.outputListener());
		this.command = new JvmCommand(options, this.log.logbackConfigFile());
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
		return this.log.file();
	}

	/**
	 * Launch the process. Does not wait for it to be ready.
	 * @throws IllegalStateException when it is already running
	 */
	public synchronized void start() {
		if (isAlive()) {
			throw new IllegalStateException(this.name + " is already running (pid " + pid() + "); kill or stop it first");
		}
		ProcessBuilder builder = this.log.capture(this.command.processBuilder());
		Process started;
		try {
			started = builder.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not launch " + this.name + ": " + builder.command(), ex);
		}
		this.process = started;
		this.input = new ProcessInput(started);
		this.log.follow(started, this.name + " output");
		this.paused = false;
		ProcessExits.started(this);
	}

	/**
	 * Send one line to the process's standard input; the process reads it from
	 * {@link ParentWatchdog#commands()}.
	 * @param line the line, without a line break
	 * @throws IllegalStateException when the process is not running or the line
	 * cannot be written
	 */
	public void send(String line) {
		ProcessInput.requireOneLine(line);
		ProcessInput current = this.input;
		if (current == null || !isAlive()) {
			throw new IllegalStateException("Cannot send '" + line + "' to " + this.name + ": it is not running");
		}
		current.send(line, this.name);
	}

	/**
	 * Kill the process with SIGKILL ({@code kill -9}) and wait until it has gone.
	 */
	public synchronized void kill() {
		Process current = this.process;
		if (current != null) {
			current.destroyForcibly();
			ProcessExits.awaitKilled(current, this.name);
		}
		this.paused = false;
		ProcessExits.ended(this);
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
			if (!ProcessExits.waitFor(current, ProcessExits.EXIT_TIMEOUT)) {
				current.destroyForcibly();
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
			ProcessSignals.send(pid(), "TERM", this.name);
		}
		return awaitExit(timeout);
	}

	/**
	 * Wait for the process to exit on its own, such as after a command that ends it,
	 * and for its output listener to get its last lines; kill it when it does not
	 * exit in time.
	 * @param timeout the longest wait
	 * @return the exit status, or -1 when it had to be killed
	 */
	public int awaitExit(Duration timeout) {
		Process current = this.process;
		if (current == null) {
			throw new IllegalStateException(this.name + " has never been started");
		}
		if (ProcessExits.waitFor(current, timeout)) {
			ProcessExits.ended(this);
			// the lines printed just before the exit may still be on their way to the listener; past the bound, a
			// test that misses a line says so with the log's last lines
			this.log.awaitCopied(OUTPUT_END_TIMEOUT);
			return current.exitValue();
		}
		kill();
		return -1;
	}

	/**
	 * Freeze the process with SIGSTOP. Its sockets stay open but it answers nothing.
	 * Returns once every thread of the process has stopped.
	 */
	public synchronized void pause() {
		requireAlive("pause");
		ProcessSignals.send(pid(), "STOP", this.name);
		this.paused = true;
		ProcessSignals.awaitStopped(pid(), this.name, STOP_TIMEOUT);
	}

	/**
	 * Let a paused process go on with SIGCONT.
	 */
	public synchronized void resume() {
		requireAlive("resume");
		ProcessSignals.send(pid(), "CONT", this.name);
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
		return this.name + " is " + state + "; last lines of " + this.log + ":\n" + this.log.tail();
	}

	/**
	 * The class path of the process: the test JVM's, without the entries whose file
	 * name contains one of the {@link Builder#classPathWithout(String...) excluded}
	 * fragments.
	 * @return the class path
	 */
	String classPath() {
		return this.command.classPath();
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

	/**
	 * Options of a process: where it logs, what it runs with, as whom. Each option
	 * returns the builder, for chaining.
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
		 * Leave out of the process's class path every entry whose file name contains
		 * one of the fragments, such as {@code "reactor-core"} for
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
		 * Run the process as the given user and group id, through {@code setpriv}, so
		 * that a {@link LoopbackFirewall} can tell its packets apart. It keeps the right
		 * to read and write any file, as the test JVM's root user has. Needs root.
		 * @param uid the user id, which need not exist in {@code /etc/passwd}
		 * @return this builder
		 */
		public Builder runAs(int uid) {
			this.uid = uid;
			return this;
		}

		/**
		 * The JDK or JRE that runs the process; by default the one running the tests.
		 * @param javaHome its home directory
		 * @return this builder
		 */
		public Builder javaHome(Path javaHome) {
			this.javaHome = javaHome;
			return this;
		}

		/**
		 * Create the process without starting it.
		 * @return the process
		 * @throws IllegalStateException when no directory was given
		 */
		public JvmProcess build() {
			Path logDirectory = this.directory;
			if (logDirectory == null) {
				throw new IllegalStateException(
						"No directory for " + this.name + ": call directory(Path) on the builder");
			}
			return new JvmProcess(new JvmProcessOptions(this.name, this.mainClass, logDirectory, this.logFileName,
					this.arguments, this.jvmOptions, this.systemProperties, this.outputListener, this.environment,
					this.rootLogLevel, this.classPathExclusions, this.javaHome, this.uid));
		}

	}

}
