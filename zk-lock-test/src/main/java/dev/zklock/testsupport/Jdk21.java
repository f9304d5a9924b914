package dev.zklock.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;

/**
 * Finds a JDK 21 or newer for tests that run virtual threads in a child JVM: this
 * one, {@code ZK_LOCK_TEST_JDK21_HOME}, or one found in {@code /usr/lib/jvm}.
 * Without one the test is skipped, or fails when
 * {@code ZK_LOCK_TEST_VIRTUAL_THREADS_REQUIRED=true} (as in CI).
 */
public final class Jdk21 {

	private Jdk21() {
	}

	/**
	 * The home of a JDK 21 or newer; aborts (skips) the test without one, or fails it
	 * when one is required.
	 * @return the JDK's home directory
	 */
	public static Path requireHome() {
		Optional<Path> home = find();
		if (home.isEmpty()) {
			String reason = "no JDK 21 or newer found: set ZK_LOCK_TEST_JDK21_HOME";
			if (Boolean.parseBoolean(System.getenv("ZK_LOCK_TEST_VIRTUAL_THREADS_REQUIRED"))) {
				throw new IllegalStateException(reason + " (ZK_LOCK_TEST_VIRTUAL_THREADS_REQUIRED=true)");
			}
			Assumptions.abort(reason);
		}
		return home.get();
	}

	/**
	 * The home of a JDK 21 or newer, if there is one.
	 * @return the home directory
	 */
	public static Optional<Path> find() {
		if (Runtime.version().feature() >= 21) {
			return Optional.of(Paths.get(System.getProperty("java.home")));
		}
		String configured = System.getenv("ZK_LOCK_TEST_JDK21_HOME");
		if (configured != null && !configured.isBlank()) {
			return Optional.of(Paths.get(configured));
		}
		Path jvms = Paths.get("/usr/lib/jvm");
		if (!Files.isDirectory(jvms)) {
			return Optional.empty();
		}
		try (Stream<Path> homes = Files.list(jvms)) {
			return homes.filter((home) -> featureVersion(home) >= 21 && Files.isExecutable(home.resolve("bin/java")))
				.sorted()
				.findFirst();
		}
		catch (IOException ex) {
			return Optional.empty();
		}
	}

	// JAVA_VERSION="25.0.3" in the JDK's release file
	private static int featureVersion(Path home) {
		try {
			for (String line : Files.readAllLines(home.resolve("release"))) {
				if (line.startsWith("JAVA_VERSION=")) {
					String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
					return Integer.parseInt(version.split("[.+-]")[0]);
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// not a JDK we can read
		}
		return 0;
	}

}
