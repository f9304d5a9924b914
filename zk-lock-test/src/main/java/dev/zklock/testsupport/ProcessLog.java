package dev.zklock.testsupport;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * The log of a {@link JvmProcess}: the logback configuration that sends the process's
 * logging to its standard output, and the file that receives that output across
 * restarts, written directly or line by line on the way to a listener.
 */
final class ProcessLog {

	private static final int TAIL_LINES = 40;

	private final Path file;

	private final Path logbackConfigFile;

	private final @Nullable Consumer<String> listener;

	// completes once the current process's output has all been copied: its exit comes before that
	private volatile CompletableFuture<Void> copied = CompletableFuture.completedFuture(null);

	ProcessLog(Path directory, String fileName, String rootLevel, @Nullable Consumer<String> listener) {
		this.file = directory.resolve(fileName);
		this.logbackConfigFile = directory.resolve("logback.xml");
		this.listener = listener;
		writeLogbackConfig(rootLevel);
	}

	Path file() {
		return this.file;
	}

	Path logbackConfigFile() {
		return this.logbackConfigFile;
	}

	/**
	 * Send the output of the process to be launched straight to the log file, unless a
	 * listener must see it line by line.
	 * @param builder the process to be launched
	 * @return the builder
	 */
	ProcessBuilder capture(ProcessBuilder builder) {
		return (this.listener != null) ? builder : builder.redirectOutput(Redirect.appendTo(this.file.toFile()));
	}

	/**
	 * With a listener, copy the launched process's output to the log file and to the
	 * listener on a thread of its own.
	 * @param started the launched process
	 * @param threadName the name of that thread
	 */
	void follow(Process started, String threadName) {
		Consumer<String> current = this.listener;
		if (current != null) {
			CompletableFuture<Void> done = new CompletableFuture<>();
			this.copied = done;
			Thread pump = new Thread(() -> {
				try {
					pump(started, current);
				}
				finally {
					done.complete(null);
				}
			}, threadName);
			pump.setDaemon(true);
			pump.start();
		}
	}

	/**
	 * Wait until the output of the process launched last has reached the listener to
	 * its end: the process may exit before its last lines were read.
	 * @param timeout the longest wait; past it, the listener may miss the last lines
	 */
	void awaitCopied(Duration timeout) {
		try {
			this.copied.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// the caller's failure, if any, shows the log's last lines
		}
	}

	// a failure of the listener is logged, not thrown
	private void pump(Process source, Consumer<String> listener) {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(source.getInputStream(), StandardCharsets.UTF_8));
				BufferedWriter log = Files.newBufferedWriter(this.file, StandardCharsets.UTF_8,
						StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
			String line;
			while ((line = reader.readLine()) != null) {
				log.write(line);
				log.newLine();
				log.flush();
				try {
					listener.accept(line);
				}
				catch (RuntimeException ex) {
					log.write("(output listener failed: " + ex + ")");
					log.newLine();
				}
			}
		}
		catch (IOException ex) {
			// the process went away
		}
	}

	/**
	 * The last lines of the log, for error messages.
	 * @return the lines, or why there are none
	 */
	String tail() {
		try {
			List<String> lines = Files.readAllLines(this.file, StandardCharsets.UTF_8);
			return String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size()));
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	@Override
	public String toString() {
		return this.file.toString();
	}

	private void writeLogbackConfig(String rootLevel) {
		String config = """
				<configuration>
					<appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
						<encoder>
							<pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern>
						</encoder>
					</appender>
					<root level="LEVEL">
						<appender-ref ref="OUT"/>
					</root>
				</configuration>
				""".replace("LEVEL", rootLevel);
		try {
			Files.writeString(this.logbackConfigFile, config, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write " + this.logbackConfigFile, ex);
		}
	}

}
