package dev.zklock.testsupport;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

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
public final class ZooKeeperProcess extends ZooKeeperServerJvm implements AutoCloseable {

	/**
	 * The tick time a server gets unless its builder sets another. ZooKeeper ends a
	 * session on the first tick after its timeout, so a session lasts up to one tick
	 * longer than its timeout: bounds on a hand-over after a kill add it.
	 */
	public static final Duration DEFAULT_TICK_TIME = Duration.ofMillis(2000);

	private static final String MAIN_CLASS = "org.apache.zookeeper.server.ZooKeeperServerMain";

	private final Path directory;

	private ZooKeeperProcess(JvmProcess server, int port, Path directory, Path dataDirectory,
			Duration startupTimeout) {
		super(server, port, dataDirectory, startupTimeout);
		this.directory = directory;
	}

	/**
	 * A builder of a standalone server process.
	 * @return the builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * The client port on 127.0.0.1.
	 * @return the port
	 */
	public int port() {
		return clientPort();
	}

	/**
	 * Start the server if it is not running, on the same port and data directory, and
	 * wait until it serves.
	 */
	public void start() {
		launchIfNotRunning();
		awaitServing();
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
	 * Wait until the server answers {@code srvr} as a standalone server.
	 */
	@Override
	public void awaitServing() {
		awaitMode(ServerMode.STANDALONE::equals);
	}

	/**
	 * Kill the server and delete its directory.
	 */
	@Override
	public void close() {
		kill();
		Directories.deleteRecursively(this.directory);
	}

	@Override
	public String toString() {
		return "ZooKeeperProcess[" + connectString() + "]";
	}

	/**
	 * Options of a standalone server process: tick time 2 s, startup timeout 60 s.
	 */
	public static final class Builder extends ServerOptions<Builder> {

		private final ServerJvmOptions jvm = new ServerJvmOptions();

		private boolean forceSync = true;

		private Builder() {
			super(DEFAULT_TICK_TIME, Duration.ofSeconds(60));
		}

		/**
		 * The options of the server's JVM, replacing the defaults ({@code -Xmx96m},
		 * serial GC, C1 only).
		 * @param jvmOptions the JVM options
		 * @return this builder
		 */
		public Builder jvmOptions(List<String> jvmOptions) {
			this.jvm.jvmOptions(jvmOptions);
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
		 * Launch the server and wait until it serves.
		 * @return the running server
		 */
		public ZooKeeperProcess start() {
			Path directory = Directories.createTemporary("zk-lock-process-");
			Path dataDirectory = Directories.create(directory.resolve("data"));
			int port = FreePorts.next();
			ZooKeeperConfig config = config(dataDirectory.toString(), port,
					Map.of("forceSync", this.forceSync ? "yes" : "no"));
			JvmProcess server = this.jvm
				.process("ZooKeeper process on port " + port, MAIN_CLASS, directory, config, sweepProperties())
				.build();
			return startOrClose(new ZooKeeperProcess(server, port, directory, dataDirectory, startupTimeout()),
					ZooKeeperProcess::start);
		}

	}

}
