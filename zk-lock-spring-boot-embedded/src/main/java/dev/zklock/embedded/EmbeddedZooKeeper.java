package dev.zklock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone ZooKeeper server running in this JVM on 127.0.0.1, for development
 * only. Built on ZooKeeper's {@link ZooKeeperServerEmbedded}, with the admin server off.
 * Without a data directory it keeps its data in a temporary directory removed on
 * {@link #close()}.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

	private static final String HOST = "127.0.0.1";

	private static final long START_TIMEOUT_MILLIS = 30_000;

	private final ZooKeeperServerEmbedded server;

	private final Path workDirectory;

	private final Path dataDirectory;

	private final String connectString;

	private final AtomicBoolean closed = new AtomicBoolean();

	private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, Path workDirectory, Path dataDirectory,
			String connectString) {
		this.server = server;
		this.workDirectory = workDirectory;
		this.dataDirectory = dataDirectory;
		this.connectString = connectString;
	}

	/**
	 * Start a server.
	 * @param port the client port on 127.0.0.1; 0 picks a free port
	 * @param dataDirectory where to keep the data, kept after close; {@code null} for a
	 * temporary directory removed on close
	 * @return the started server
	 * @throws EmbeddedZooKeeperException if the server cannot start
	 */
	public static EmbeddedZooKeeper start(int port, @Nullable Path dataDirectory) {
		if (port != 0) {
			checkPortFree(port);
		}
		Path workDirectory = createWorkDirectory();
		Path data = (dataDirectory != null) ? dataDirectory.toAbsolutePath() : workDirectory.resolve("data");
		ZooKeeperServerEmbedded server = null;
		try {
			Files.createDirectories(data);
			server = ZooKeeperServerEmbedded.builder()
				.baseDir(workDirectory)
				.configuration(configuration(port, data))
				.exitHandler(ExitHandler.LOG_ONLY)
				.build();
			server.start(START_TIMEOUT_MILLIS);
			EmbeddedZooKeeper started = new EmbeddedZooKeeper(server, workDirectory, data, server.getConnectionString());
			logger.warn("zk-lock: embedded ZooKeeper server, for DEVELOPMENT ONLY, listening on {} with data in {}{}",
					started.connectString, data, (dataDirectory != null) ? "" : " (removed on shutdown)");
			return started;
		}
		catch (Exception ex) {
			if (server != null) {
				server.close();
			}
			try {
				deleteRecursively(workDirectory);
			}
			catch (UncheckedIOException cleanup) {
				ex.addSuppressed(cleanup);
			}
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			throw new EmbeddedZooKeeperException("The embedded ZooKeeper server (zk-lock.embedded.enabled=true) "
					+ "failed to start on " + HOST + ":" + port + " with data in " + data + ": " + ex,
					"Check that zk-lock.embedded.data-dir is writable and zk-lock.embedded.port is free, "
							+ "or set zk-lock.embedded.enabled=false and point zk-lock.connect-string at a server.",
					ex);
		}
	}

	private static Properties configuration(int port, Path data) {
		Properties configuration = new Properties();
		configuration.setProperty("clientPort", Integer.toString(port));
		configuration.setProperty("clientPortAddress", HOST);
		configuration.setProperty("dataDir", data.toString());
		configuration.setProperty("admin.enableServer", "false");
		return configuration;
	}

	private static void checkPortFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
			socket.setReuseAddress(true);
		}
		catch (IOException ex) {
			throw new EmbeddedZooKeeperException(
					"zk-lock.embedded.port " + port + " is already in use on " + HOST + " (" + ex.getMessage() + ")",
					"Stop whatever listens on that port, choose another zk-lock.embedded.port, "
							+ "or set zk-lock.embedded.port=0 to pick a free port.",
					ex);
		}
	}

	private static Path createWorkDirectory() {
		try {
			return Files.createTempDirectory("zk-lock-embedded-");
		}
		catch (IOException ex) {
			throw new EmbeddedZooKeeperException(
					"Could not create a temporary directory for the embedded ZooKeeper server: " + ex.getMessage(),
					"Check that java.io.tmpdir (" + System.getProperty("java.io.tmpdir") + ") is writable.", ex);
		}
	}

	/**
	 * Return the connection string of the server, such as {@code 127.0.0.1:2181}.
	 * @return the connection string
	 */
	public String getConnectString() {
		return this.connectString;
	}

	/**
	 * Return the client port the server listens on.
	 * @return the port
	 */
	public int getPort() {
		return Integer.parseInt(this.connectString.substring(this.connectString.lastIndexOf(':') + 1));
	}

	/**
	 * Return the data directory of the server.
	 * @return the data directory
	 */
	public Path getDataDirectory() {
		return this.dataDirectory;
	}

	/**
	 * Stop the server and remove its temporary files; a data directory given to
	 * {@link #start(int, Path)} is kept.
	 */
	@Override
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			this.server.close();
			deleteRecursively(this.workDirectory);
			logger.info("zk-lock: embedded ZooKeeper server on {} stopped", this.connectString);
		}
	}

	private static void deleteRecursively(Path directory) {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
				Files.deleteIfExists(path);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not delete " + directory, ex);
		}
	}

}
