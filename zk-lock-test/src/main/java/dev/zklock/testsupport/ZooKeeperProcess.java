package dev.zklock.testsupport;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A standalone ZooKeeper server in its own JVM
 * ({@code org.apache.zookeeper.server.ZooKeeperServerMain}), launched with the test JVM's
 * java binary and class path. It can be killed ({@code kill -9}), paused
 * ({@code SIGSTOP}), resumed ({@code SIGCONT}) and started again on the same port and
 * data directory. It listens on 127.0.0.1 only; {@link #close()} kills it and deletes
 * its directory.
 * <p>
 * The class path must hold the ZooKeeper server's run-time dependencies, including
 * {@code io.dropwizard.metrics:metrics-core} and {@code org.xerial.snappy:snappy-java}.
 * Pause and resume use the {@code kill} command, so they need a Unix-like system.
 *
 * <pre class="code">
 * try (ZooKeeperProcess zookeeper = ZooKeeperProcess.builder().start()) {
 *     // connect to zookeeper.connectString(), then zookeeper.kill(); zookeeper.start();
 * }
 * </pre>
 */
public final class ZooKeeperProcess implements AutoCloseable {

	private static final String MAIN_CLASS = "org.apache.zookeeper.server.ZooKeeperServerMain";

	private final Path directory;

	private final Path dataDirectory;

	private final int port;

	private final Duration startupTimeout;

	private final JvmProcess server;

	private ZooKeeperProcess(Builder builder) {
		this.directory = Directories.createTemporary("zk-lock-process-");
		this.dataDirectory = Directories.create(this.directory.resolve("data"));
		this.port = FreePorts.next();
		this.startupTimeout = builder.startupTimeout;
		ZooKeeperConfig.server(builder.tickTime, this.dataDirectory.toString(), this.port)
			.set("forceSync", builder.forceSync ? "yes" : "no")
			.setAll(builder.settings)
			.writeTo(this.directory.resolve("zoo.cfg"));
		this.server = JvmProcess.builder("ZooKeeper process on port " + this.port, MAIN_CLASS)
			.directory(this.directory)
			.logFileName("server.log")
			.arguments(List.of(this.directory.resolve("zoo.cfg").toString()))
			.jvmOptions(builder.jvmOptions)
			.systemProperties(builder.systemProperties())
			.build();
	}

	/**
	 * A builder of a standalone server process.
	 * @return the builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * The connection string, {@code 127.0.0.1:port}.
	 * @return the connection string
	 */
	public String connectString() {
		return "127.0.0.1:" + this.port;
	}

	/**
	 * The client port on 127.0.0.1.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * The process id of the server JVM, the current one after a restart.
	 * @return the pid
	 */
	public long pid() {
		return this.server.pid();
	}

	/**
	 * The data directory, kept across restarts.
	 * @return the data directory
	 */
	public Path dataDirectory() {
		return this.dataDirectory;
	}

	/**
	 * The file that receives the server's output, appended to across restarts.
	 * @return the log file
	 */
	public Path logFile() {
		return this.server.logFile();
	}

	/**
	 * Whether the server process is alive, paused or not.
	 * @return whether it is alive
	 */
	public boolean isRunning() {
		return this.server.isAlive();
	}

	/**
	 * Whether the server process is paused.
	 * @return whether it is paused
	 */
	public boolean isPaused() {
		return this.server.isPaused();
	}

	/**
	 * The mode that {@code srvr} reports, {@link ServerMode#UNREACHABLE} when the server
	 * is not running or is paused.
	 * @return the mode
	 */
	public ServerMode mode() {
		return (isRunning() && !isPaused()) ? FourLetterWords.mode(this.port) : ServerMode.UNREACHABLE;
	}

	/**
	 * Start the server if it is not running, on the same port and data directory, and
	 * wait until it serves.
	 */
	public void start() {
		if (!this.server.isAlive()) {
			this.server.start();
		}
		awaitServing();
	}

	/**
	 * Kill the server with SIGKILL ({@code kill -9}) and wait until the process has gone.
	 */
	public void kill() {
		this.server.kill();
	}

	/**
	 * Stop the server with SIGTERM and wait until the process has gone.
	 */
	public void stop() {
		this.server.stop();
	}

	/**
	 * Kill the server ({@code kill -9}), start it again on the same port and data
	 * directory and wait until it serves.
	 */
	public void restart() {
		kill();
		start();
	}

	/**
	 * Freeze the server with SIGSTOP: connections stay open but nothing is answered, as
	 * in a long GC pause.
	 */
	public void pause() {
		this.server.pause();
	}

	/**
	 * Let a paused server go on with SIGCONT. Does not wait: call {@link #awaitServing()}
	 * to wait until it answers again.
	 */
	public void resume() {
		this.server.resume();
	}

	/**
	 * Wait until the server answers {@code srvr} as a standalone server.
	 */
	public void awaitServing() {
		Poll.until(this.server + " to serve on " + connectString(), this.startupTimeout, () -> {
			this.server.requireNotExited();
			return mode() == ServerMode.STANDALONE;
		}, this.server::diagnostics);
	}

	/**
	 * Kill the server and delete its directory.
	 */
	@Override
	public void close() {
		this.server.kill();
		Directories.deleteRecursively(this.directory);
	}

	@Override
	public String toString() {
		return "ZooKeeperProcess[" + connectString() + "]";
	}

	/**
	 * Options of a standalone server process.
	 */
	public static final class Builder {

		private Duration tickTime = Duration.ofMillis(2000);

		private @Nullable Duration containerCheckInterval;

		private boolean forceSync = true;

		private List<String> jvmOptions = JvmProcess.DEFAULT_JVM_OPTIONS;

		private final Map<String, String> settings = new LinkedHashMap<>();

		private Duration startupTimeout = Duration.ofSeconds(60);

		private Builder() {
		}

		/**
		 * The server's tick time; session timeouts are clamped to 2 to 20 ticks.
		 * @param tickTime the tick time, 2 s by default
		 * @return this builder
		 */
		public Builder tickTime(Duration tickTime) {
			this.tickTime = tickTime;
			return this;
		}

		/**
		 * How often the server removes empty container nodes
		 * ({@code znode.container.checkIntervalMs}, one minute by default).
		 * @param interval the sweep interval
		 * @return this builder
		 */
		public Builder containerCheckInterval(Duration interval) {
			this.containerCheckInterval = interval;
			return this;
		}

		/**
		 * Whether the server syncs its transaction log to disk before it answers.
		 * @param forceSync whether to sync, true by default as in production
		 * @return this builder
		 */
		public Builder forceSync(boolean forceSync) {
			this.forceSync = forceSync;
			return this;
		}

		/**
		 * The options of the server JVM, replacing the defaults ({@code -Xmx96m}, serial
		 * GC, C1 only).
		 * @param jvmOptions the JVM options
		 * @return this builder
		 */
		public Builder jvmOptions(List<String> jvmOptions) {
			this.jvmOptions = List.copyOf(jvmOptions);
			return this;
		}

		/**
		 * An extra {@code zoo.cfg} setting.
		 * @param key the key
		 * @param value the value
		 * @return this builder
		 */
		public Builder setting(String key, String value) {
			this.settings.put(key, value);
			return this;
		}

		/**
		 * The longest wait for the server to serve after a start.
		 * @param startupTimeout the timeout, 60 s by default
		 * @return this builder
		 */
		public Builder startupTimeout(Duration startupTimeout) {
			this.startupTimeout = startupTimeout;
			return this;
		}

		/**
		 * Launch the server and wait until it serves.
		 * @return the running server
		 */
		public ZooKeeperProcess start() {
			ZooKeeperProcess zookeeper = new ZooKeeperProcess(this);
			try {
				zookeeper.start();
			}
			catch (RuntimeException ex) {
				zookeeper.close();
				throw ex;
			}
			return zookeeper;
		}

		private Map<String, String> systemProperties() {
			return (this.containerCheckInterval != null)
					? Map.of("znode.container.checkIntervalMs", Long.toString(this.containerCheckInterval.toMillis()))
					: Map.of();
		}

	}

}
