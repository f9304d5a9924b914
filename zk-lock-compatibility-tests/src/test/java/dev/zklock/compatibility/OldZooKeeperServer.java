package dev.zklock.compatibility;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.springframework.util.FileSystemUtils;

import dev.zklock.testsupport.FourLetterWords;
import dev.zklock.testsupport.FreePorts;
import dev.zklock.testsupport.ParentWatchdog;

import static org.awaitility.Awaitility.await;

/**
 * A ZooKeeper server of an older line (3.5, 3.4) in its own JVM, run from the jars the
 * build copies into {@code target/zookeeper-<version>} (the {@code zk-lock.zookeeper-<line>.dir}
 * system property). Listens on 127.0.0.1 only; {@link ParentWatchdog} halts it when the
 * test JVM goes away.
 */
public final class OldZooKeeperServer implements AutoCloseable {

	private static final Duration STARTUP = Duration.ofSeconds(60);

	private final Process process;

	private final int port;

	private final Path directory;

	private final String version;

	private OldZooKeeperServer(Process process, int port, Path directory) {
		this.process = process;
		this.port = port;
		this.directory = directory;
		try {
			await().atMost(STARTUP).ignoreExceptions().until(() -> {
				if (!process.isAlive()) {
					throw new IllegalStateException("ZooKeeper exited: " + log());
				}
				return FourLetterWords.send(port, "srvr").startsWith("Zookeeper version: ");
			});
			String srvr = FourLetterWords.send(port, "srvr");
			this.version = srvr.substring("Zookeeper version: ".length(), srvr.indexOf('-'));
		}
		catch (IOException | RuntimeException ex) {
			close();
			throw new IllegalStateException("ZooKeeper in " + directory + " did not serve: " + log(), ex);
		}
	}

	/**
	 * Start a server of a line whose jars the build copied.
	 * @param line {@code 3.5} or {@code 3.4}
	 * @return the running server
	 */
	public static OldZooKeeperServer start(String line) {
		return start(line, Map.of());
	}

	/**
	 * Start a server of a line whose jars the build copied, with extra system
	 * properties, such as {@code znode.container.checkIntervalMs}.
	 * @param line {@code 3.5} or {@code 3.4}
	 * @param systemProperties the server JVM's extra system properties
	 * @return the running server
	 */
	public static OldZooKeeperServer start(String line, Map<String, String> systemProperties) {
		String jars = System.getProperty("zk-lock.zookeeper-" + line + ".dir");
		if (jars == null || !Files.isDirectory(Path.of(jars))) {
			throw new IllegalStateException("No ZooKeeper " + line + " jars in '" + jars
					+ "': run the tests through Maven, which copies them (maven-dependency-plugin)");
		}
		int port = FreePorts.next();
		try {
			Path directory = Files.createTempDirectory("zookeeper-" + line + "-");
			Path config = directory.resolve("zoo.cfg");
			Files.writeString(config, String.join("\n", "tickTime=1000", "dataDir=" + directory.resolve("data"),
					"clientPort=" + port, "clientPortAddress=127.0.0.1", "4lw.commands.whitelist=*",
					"admin.enableServer=false", "minSessionTimeout=2000", "maxSessionTimeout=40000", ""));
			String watchdog = Path.of(ParentWatchdog.class.getProtectionDomain().getCodeSource().getLocation().toURI())
				.toString();
			List<String> command = new ArrayList<>(List.of(
					Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx96m",
					"-XX:+UseSerialGC", "-Dzookeeper.jmx.log4j.disable=true"));
			systemProperties.forEach((key, value) -> command.add("-D" + key + "=" + value));
			command.addAll(List.of("-cp", jars + "/*" + File.pathSeparator + watchdog, ParentWatchdog.class.getName(),
					"org.apache.zookeeper.server.ZooKeeperServerMain", config.toString()));
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(Redirect.appendTo(directory.resolve("server.log").toFile()))
				.start();
			return new OldZooKeeperServer(process, port, directory);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (java.net.URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The connection string, {@code 127.0.0.1:port}.
	 * @return the connection string
	 */
	public String connectString() {
		return "127.0.0.1:" + this.port;
	}

	/**
	 * The version the server reports, such as {@code 3.5.10}.
	 * @return the version
	 */
	public String version() {
		return this.version;
	}

	private String log() {
		try {
			List<String> lines = Files.readAllLines(this.directory.resolve("server.log"));
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
		}
		catch (IOException ex) {
			return "(no log: " + ex + ")";
		}
	}

	@Override
	public void close() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor();
			FileSystemUtils.deleteRecursively(this.directory);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public String toString() {
		return "ZooKeeper " + this.version + " at " + connectString();
	}

}
