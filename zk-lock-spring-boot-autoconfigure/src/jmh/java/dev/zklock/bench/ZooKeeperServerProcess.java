package dev.zklock.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A standalone ZooKeeper server in a JVM of its own, with ZooKeeper's default
 * settings (forceSync on, tick time 2 s, container sweep every minute). The only
 * additions are the loopback address, the {@code mntr} four-letter word the
 * benchmarks count operations with, and no admin web server.
 * <p>
 * This is the one piece that knows how the server is started: swap it for a shared
 * test fixture without touching the benchmarks.
 */
public final class ZooKeeperServerProcess implements AutoCloseable {

	private static final String HOST = "127.0.0.1";

	private final Process process;

	private final int port;

	private final Path log;

	private ZooKeeperServerProcess(Process process, int port, Path log) {
		this.process = process;
		this.port = port;
		this.log = log;
	}

	/**
	 * Start a server and wait until it answers.
	 * @param workDir a directory for its configuration, data and log; its data
	 * directory is emptied first
	 * @return the running server
	 * @throws IOException when the server cannot be started
	 * @throws InterruptedException when interrupted while waiting
	 */
	public static ZooKeeperServerProcess start(Path workDir) throws IOException, InterruptedException {
		Path dataDir = workDir.resolve("data");
		deleteRecursively(dataDir);
		Files.createDirectories(dataDir);
		int port = freePort();
		Path config = workDir.resolve("zoo.cfg");
		Files.write(config, List.of("tickTime=2000", "dataDir=" + dataDir.toAbsolutePath(), "clientPort=" + port,
				"clientPortAddress=" + HOST, "4lw.commands.whitelist=mntr,srvr,ruok", "admin.enableServer=false"));
		Path log = workDir.resolve("zookeeper.log");
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process process = new ProcessBuilder(java, "-Xms512m", "-Xmx512m", "-cp", System.getProperty("java.class.path"),
				"org.apache.zookeeper.server.ZooKeeperServerMain", config.toAbsolutePath().toString())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		ZooKeeperServerProcess server = new ZooKeeperServerProcess(process, port, log);
		server.awaitServing(Duration.ofSeconds(60));
		return server;
	}

	/**
	 * The connect string of the server.
	 * @return {@code 127.0.0.1:port}
	 */
	public String connectString() {
		return HOST + ":" + this.port;
	}

	@Override
	public void close() throws InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
			this.process.waitFor(20, TimeUnit.SECONDS);
		}
	}

	private void awaitServing(Duration timeout) throws IOException, InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		IOException last = null;
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IOException("ZooKeeper server exited with " + this.process.exitValue() + "; see " + this.log);
			}
			try {
				if (ZooKeeperMonitor.command(connectString(), "ruok").startsWith("imok")) {
					ZooKeeperMonitor.mntr(connectString());
					return;
				}
			}
			catch (IOException ex) {
				last = ex;
			}
			Thread.sleep(100);
		}
		close();
		throw new IOException("ZooKeeper server did not answer on " + connectString() + " within " + timeout
				+ "; see " + this.log, last);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
			return socket.getLocalPort();
		}
	}

	private static void deleteRecursively(Path path) throws IOException {
		if (!Files.exists(path)) {
			return;
		}
		try (var paths = Files.walk(path)) {
			for (Path each : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
				Files.delete(each);
			}
		}
	}

}
