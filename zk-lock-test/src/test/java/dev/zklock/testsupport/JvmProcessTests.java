package dev.zklock.testsupport;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link JvmProcess}: arguments, the command channel, the output listener and
 * the class path.
 */
class JvmProcessTests {

	@TempDir
	Path directory;

	@Test
	void commandsGoInAndOutputComesOut() {
		List<String> output = new CopyOnWriteArrayList<>();
		JvmProcess process = JvmProcess.builder("echo", EchoMain.class.getName())
			.directory(this.directory)
			.arguments(List.of("one", "two"))
			.outputListener(output::add)
			.build();
		process.start();
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> output.contains("started with one two"));
			process.send("hello");
			await().atMost(Duration.ofSeconds(10)).until(() -> output.contains("echo: hello"));
			process.send("exit");
			assertThat(process.awaitExit(Duration.ofSeconds(10))).isEqualTo(3);
			assertThat(process.logFile()).content().contains("echo: hello");
			assertThatIllegalStateException().isThrownBy(() -> process.send("late")).withMessageContaining("not running");
		}
		finally {
			process.kill();
		}
	}

	@Test
	void classPathWithoutLeavesOutTheMatchingEntriesOnly() {
		List<String> full = List.of(System.getProperty("java.class.path").split(File.pathSeparator));
		assertThat(full).anyMatch((entry) -> entry.contains("snappy-java-"))
			.anyMatch((entry) -> entry.contains("metrics-core-"));
		JvmProcess process = JvmProcess.builder("echo", EchoMain.class.getName())
			.directory(this.directory)
			.classPathWithout("snappy-java", "metrics-core")
			.build();
		List<String> reduced = List.of(process.classPath().split(File.pathSeparator));
		assertThat(reduced).noneMatch((entry) -> entry.contains("snappy-java") || entry.contains("metrics-core"))
			.containsExactlyElementsOf(full.stream()
				.filter((entry) -> !entry.contains("snappy-java-") && !entry.contains("metrics-core-"))
				.toList());
	}

	@Test
	void multiLineCommandsAreRejected() {
		JvmProcess process = JvmProcess.builder("echo", EchoMain.class.getName()).directory(this.directory).build();
		assertThat(process.isAlive()).isFalse();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> process.send("two\nlines"))
			.withMessageContaining("one line");
	}

}
