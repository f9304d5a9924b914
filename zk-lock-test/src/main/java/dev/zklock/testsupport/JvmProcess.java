package dev.zklock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

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

	private final String name;

	private final ProcessLog log;

	private final JvmCommand command;

	private volatile @Nullable Process process;

	private volatile @Nullable ProcessInput input;

	private volatile boolean paused;

	private JvmProcess(Builder builder) {
		if (builder.directory == null) {
			throw new IllegalStateException("No directory for " + builder.name + ": call directory(Path) on the builder");
		}
		this.name = builder.name;
		this.log = new ProcessLog(builder.directory, builder.logFileName, builder.rootLogLevel,
				builder.outputListener);
		this.command = new JvmCommand(builder, this.log.logbackConfigFile());
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
		if (ProcessExits.waitFor(current, timeout)) {
			ProcessExits.ended(this);
			return current.exitValue();
		}
		kill();
		return -1;
	}

	/**
	 * Freeze the process with SIGSTOP. Its sockets stay open but it answers nothing.
	 */
	public synchronized void pause() {
		requireAlive("pause");
		ProcessSignals.send(pid(), "STOP", this.name);
		this.paused = true;
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
	 * Options of a process; see {@link JvmProcessOptions} for each of them.
	 */
	public static final class Builder extends JvmProcessOptions<Builder> {

		private Builder(String name, String mainClass) {
			super(name, mainClass);
		}

		/**
		 * Create the process without starting it.
		 * @return the process
		 */
		public JvmProcess build() {
			return new JvmProcess(this);
		}

	}

}
