package dev.zklock.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

import org.springframework.util.FileSystemUtils;

/**
 * A real in-JVM ZooKeeper server on 127.0.0.1 that a test can stop and restart on
 * the same port, with a short tick time so that sessions may be as short as one
 * second, and its data on a tmpfs where there is one: the server's fsync per write
 * is then free, which makes tests of thousands of locks ten times faster.
 */
public final class StoppableZooKeeper implements AutoCloseable {

	/**
	 * Tick time of the server; sessions may range from 2 to 20 ticks.
	 */
	public static final int TICK_TIME_MILLIS = 500;

	private final TestingServer server;

	private final Path workDirectory;

	private StoppableZooKeeper(TestingServer server, Path workDirectory) {
		this.server = server;
		this.workDirectory = workDirectory;
	}

	/**
	 * Start a server on a free port.
	 * @return the running server
	 */
	public static StoppableZooKeeper start() {
		try {
			Path workDirectory = workDirectory();
			File dataDirectory = (workDirectory != null) ? workDirectory.resolve("data").toFile() : null;
			InstanceSpec spec = new InstanceSpec(dataDirectory, FreePorts.next(), -1, -1, true, -1, TICK_TIME_MILLIS, -1,
					Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1");
			return new StoppableZooKeeper(new TestingServer(spec, true), workDirectory);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not start a test ZooKeeper server", ex);
		}
	}

	// In memory where the machine has a tmpfs: the server's fsync per write is then
	// free. The server also writes its configuration file next to its data.
	private static Path workDirectory() throws IOException {
		Path shm = Path.of("/dev/shm");
		if (Files.isDirectory(shm) && Files.isWritable(shm)) {
			return Files.createTempDirectory(shm, "zk-lock-test-");
		}
		return null;
	}

	public String connectString() {
		return "127.0.0.1:" + this.server.getPort();
	}

	/**
	 * Stop the server, keeping its port and data, as a crash would.
	 */
	public void stop() {
		try {
			this.server.stop();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Start the stopped server again on the same port.
	 */
	public void restart() {
		try {
			this.server.restart();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not restart the test ZooKeeper server", ex);
		}
	}

	/**
	 * A started client with the given session timeout, connected.
	 * @param sessionTimeoutMillis the session timeout to ask for
	 * @return the client
	 */
	public CuratorFramework newClient(int sessionTimeoutMillis) {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString())
			.sessionTimeoutMs(sessionTimeoutMillis)
			.connectionTimeoutMs(1_000)
			.retryPolicy(new RetryNTimes(Integer.MAX_VALUE, 100))
			.build();
		client.start();
		try {
			if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
				client.close();
				throw new IllegalStateException("Test client did not connect to " + connectString());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			client.close();
			throw new IllegalStateException(ex);
		}
		return client;
	}

	@Override
	public void close() {
		try {
			this.server.close();
			if (this.workDirectory != null) {
				FileSystemUtils.deleteRecursively(this.workDirectory);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
