package dev.zklock.testsupport;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
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
	@EnabledOnOs(OS.LINUX)
	void pauseReturnsOnceEveryThreadHasStopped() throws Exception {
		List<String> output = new CopyOnWriteArrayList<>();
		JvmProcess process = JvmProcess.builder("spin", SpinMain.class.getName())
			.directory(this.directory)
			.arguments(List.of("8"))
			.outputListener(output::add)
			.build();
		process.start();
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> output.contains("spinning"));
			// control: right after kill -STOP returns, some of the 8 busy threads still run
			boolean seenRunning = false;
			for (int round = 0; round < 20 && !seenRunning; round++) {
				ProcessSignals.send(process.pid(), "STOP", "spin");
				seenRunning = !runningThreads(process.pid()).isEmpty();
				ProcessSignals.send(process.pid(), "CONT", "spin");
			}
			assertThat(seenRunning).as("a thread running right after kill -STOP returned, in 20 rounds").isTrue();
			for (int round = 0; round < 20; round++) {
				process.pause();
				assertThat(runningThreads(process.pid())).as("round %d", round).isEmpty();
				process.resume();
			}
		}
		finally {
			process.kill();
		}
	}

	// threads of the process in any state but stopped, read straight from /proc
	private static List<String> runningThreads(long pid) throws IOException {
		try (Stream<Path> tasks = Files.list(Paths.get("/proc", Long.toString(pid), "task"))) {
			return tasks.map((task) -> {
				try {
					String stat = Files.readString(task.resolve("stat"));
					return stat.charAt(stat.lastIndexOf(')') + 2) + " " + task.getFileName();
				}
				catch (IOException ex) {
					return "T gone";
				}
			}).filter((state) -> !state.startsWith("T")).toList();
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
