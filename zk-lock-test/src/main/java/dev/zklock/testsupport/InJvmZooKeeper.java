package dev.zklock.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.jspecify.annotations.Nullable;

/**
 * A standalone ZooKeeper server in the test JVM, on ZooKeeper's own
 * {@link ZooKeeperServerEmbedded}. It listens on 127.0.0.1 only, can be stopped and
 * started again on the same port and data directory, and {@link #close()} deletes its
 * directory.
 * <p>
 * The container sweep settings ({@code znode.container.checkIntervalMs},
 * {@code znode.container.maxPerMinute}) are system properties that the server reads
 * once as it starts; the fixture sets them only for that moment and restores the
 * previous values, holding a lock so that two fixtures starting
 * at once do not mix their settings.
 *
 * <pre class="code">
 * try (InJvmZooKeeper zookeeper = InJvmZooKeeper.builder().containerCheckInterval(Duration.ofMillis(100)).start()) {
 *     // connect to zookeeper.connectString()
 * }
 * </pre>
 */
public final class InJvmZooKeeper implements AutoCloseable {

	private static final Object startLock = new Object();

	private final Path directory;

	private final Path dataDirectory;

	private final int port;

	private final ZooKeeperConfig config;

	private final Map<String, String> sweepProperties;

	private final Duration startupTimeout;

	private @Nullable ZooKeeperServerEmbedded server;

	private InJvmZooKeeper(Builder builder) {
		this.directory = Directories.createTemporary(builder.parentDirectory, "zk-lock-in-jvm-");
		this.dataDirectory = Directories.create(this.directory.resolve("data"));
		this.port = (builder.port != 0) ? builder.port : FreePorts.next();
		this.config = builder.config(this.dataDirectory.toString(), this.port, Map.of());
		this.sweepProperties = builder.sweepProperties();
		this.startupTimeout = builder.startupTimeout();
	}

	/**
	 * A builder of an in-JVM server.
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
	 * The data directory, kept across restarts.
	 * @return the data directory
	 */
	public Path dataDirectory() {
		return this.dataDirectory;
	}

	/**
	 * Whether the server is running.
	 * @return whether it runs
	 */
	public synchronized boolean isRunning() {
		return this.server != null;
	}

	/**
	 * Start the server if it is not running, on the same port and data directory, and
	 * wait until it serves.
	 */
	public synchronized void start() {
		if (this.server != null) {
			return;
		}
		synchronized (startLock) {
			Map<String, String> previous = new HashMap<>();
			this.sweepProperties.forEach((key, value) -> previous.put(key, System.setProperty(key, value)));
			try {
				ZooKeeperServerEmbedded embedded = ZooKeeperServerEmbedded.builder()
					.baseDir(this.directory)
					.configuration(this.config.toProperties())
					.exitHandler(ExitHandler.LOG_ONLY)
					.build();
				embedded.start(this.startupTimeout.toMillis());
				this.server = embedded;
				ServerReadiness.await(this, this.startupTimeout, () -> FourLetterWords.mode(this.port),
						ServerMode.STANDALONE::equals, null);
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not start an in-JVM ZooKeeper server on " + connectString()
						+ " within " + this.startupTimeout.toMillis() + " ms", ex);
			}
			finally {
				restore(previous);
			}
		}
	}

	/**
	 * Stop the server; its data stays for a later {@link #start()}.
	 */
	public synchronized void stop() {
		if (this.server != null) {
			this.server.close();
			this.server = null;
		}
	}

	/**
	 * Stop the server and start it again on the same port and data directory.
	 */
	public synchronized void restart() {
		stop();
		start();
	}

	/**
	 * Stop the server and delete its directory.
	 */
	@Override
	public synchronized void close() {
		stop();
		Directories.deleteRecursively(this.directory);
	}

	@Override
	public String toString() {
		return "InJvmZooKeeper[" + connectString() + "]";
	}

	private static void restore(Map<String, String> previous) {
		previous.forEach((key, value) -> {
			if (value != null) {
				System.setProperty(key, value);
			}
			else {
				System.clearProperty(key);
			}
		});
	}

	/**
	 * Options of an in-JVM server: tick time 2 s, startup timeout 30 s.
	 */
	public static final class Builder extends ServerOptions<Builder> {

		private int port;

		private @Nullable Path parentDirectory;

		private Builder() {
			super(Duration.ofMillis(2000), Duration.ofSeconds(30));
		}

		/**
		 * The client port on 127.0.0.1.
		 * @param port the port, a free one by default
		 * @return this builder
		 */
		public Builder port(int port) {
			this.port = port;
			return this;
		}

		/**
		 * Keep the server's directory in a tmpfs ({@code /dev/shm}) where the machine
		 * has one: the server's fsync per write is then free, which makes tests of
		 * thousands of locks about ten times faster.
		 * @return this builder
		 */
		public Builder inMemory() {
			Path shm = Path.of("/dev/shm");
			this.parentDirectory = (Files.isDirectory(shm) && Files.isWritable(shm)) ? shm : null;
			return this;
		}

		/**
		 * Start the server.
		 * @return the running server
		 */
		public InJvmZooKeeper start() {
			return startOrClose(new InJvmZooKeeper(this), InJvmZooKeeper::start);
		}

	}

}
