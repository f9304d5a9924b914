package dev.zklock.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine waits on {@link java.util.concurrent.locks.ReentrantLock}s, never on
 * a monitor: on Java 21 to 23 a virtual thread that blocks in a
 * {@code synchronized} block or method pins its carrier thread. Pinning cannot be
 * shown on the JDKs this build runs (17 has no virtual threads; 24 and later no
 * longer pin on monitors), so this looks at the sources: no main class of the
 * engine's package declares {@code synchronized}.
 */
class NoMonitorTests {

	private static final Path SOURCES = Path.of("src/main/java/dev/zklock/core");

	// block and line comments, and string and char literals, which may name the word
	private static final Pattern NOT_CODE = Pattern.compile("/\\*.*?\\*/|//[^\\n]*|\"(?:\\\\.|[^\"\\\\])*\"|'(?:\\\\.|[^'\\\\])*'",
			Pattern.DOTALL);

	private static final Pattern SYNCHRONIZED = Pattern.compile("\\bsynchronized\\b");

	@Test
	void noMainClassOfTheEngineUsesAMonitor() throws IOException {
		assertThat(SOURCES.resolve("LockRegistry.java")).as("the core's sources, from the module")
			.isRegularFile();
		List<String> found = new ArrayList<>();
		try (Stream<Path> files = Files.walk(SOURCES)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
				String code = NOT_CODE.matcher(Files.readString(file)).replaceAll(" ");
				Matcher matcher = SYNCHRONIZED.matcher(code);
				while (matcher.find()) {
					found.add(SOURCES.relativize(file).toString());
				}
			}
		}
		assertThat(found).as("sources that use synchronized").isEmpty();
	}

}
