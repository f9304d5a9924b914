package dev.zklock.autoconfigure;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;

/**
 * A separate JVM that runs one main class from the test class path, with the test
 * JVM's own {@code java} binary. Its standard output and error are collected line by
 * line; lines can be sent to its standard input. Closing it kills the process.
 */
final class JavaProcess implements AutoCloseable {

	private final Process process;

	private final List<String> lines = new CopyOnWriteArrayList<>();

	private final Writer input;

	private final Thread reader;

	private JavaProcess(Process process) {
		this.process = process;
		this.input = process.outputWriter(StandardCharsets.UTF_8);
		this.reader = new Thread(this::readOutput, "output of pid " + process.pid());
		this.reader.setDaemon(true);
		this.reader.start();
	}

	/**
	 * Start {@code mainClass} in a new JVM.
	 * @param mainClass the class whose {@code main} runs
	 * @param environment variables added to the inherited environment
	 * @param args the program arguments
	 * @return the running process
	 */
	static JavaProcess start(Class<?> mainClass, Map<String, String> environment, String... args) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.add("-XX:TieredStopAtLevel=1");
		command.add("-XX:+UseSerialGC");
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(mainClass.getName());
		command.addAll(List.of(args));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().putAll(environment);
		try {
			return new JavaProcess(builder.start());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + mainClass.getName(), ex);
		}
	}

	/**
	 * Return every line printed so far.
	 * @return the lines
	 */
	List<String> lines() {
		return List.copyOf(this.lines);
	}

	/**
	 * Wait until the process prints a line that starts with {@code prefix}.
	 * @param prefix the start of the line
	 * @param timeout how long to wait
	 * @return the line
	 */
	String awaitLine(String prefix, Duration timeout) {
		try {
			await().atMost(timeout).until(() -> hasPrinted(prefix));
		}
		catch (ConditionTimeoutException ex) {
			throw new AssertionError("pid " + this.process.pid() + " did not print '" + prefix + "' within " + timeout
					+ "; output:\n" + output(), ex);
		}
		return findLine(prefix);
	}

	private boolean hasPrinted(String prefix) throws InterruptedException {
		if (findLine(prefix) != null) {
			return true;
		}
		if (!this.process.isAlive()) {
			// the rest of the output is read before giving up
			this.reader.join(5000);
			if (findLine(prefix) != null) {
				return true;
			}
			throw new AssertionError("pid " + this.process.pid() + " ended with " + this.process.exitValue()
					+ " before printing '" + prefix + "'; output:\n" + output());
		}
		return false;
	}

	/**
	 * Return everything printed so far.
	 * @return the output, one line per line
	 */
	String output() {
		return String.join("\n", this.lines);
	}

	private String findLine(String prefix) {
		return this.lines.stream().filter((line) -> line.startsWith(prefix)).findFirst().orElse(null);
	}

	/**
	 * Send one line to the process's standard input.
	 * @param line the line
	 */
	void send(String line) {
		try {
			this.input.write(line + "\n");
			this.input.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write to pid " + this.process.pid(), ex);
		}
	}

	/**
	 * Wait for the process to end.
	 * @param timeout how long to wait
	 * @return the exit code
	 * @throws InterruptedException when interrupted
	 */
	int awaitExit(Duration timeout) throws InterruptedException {
		if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new AssertionError("pid " + this.process.pid() + " still runs after " + timeout
					+ "; output:\n" + output());
		}
		return this.process.exitValue();
	}

	@Override
	public void close() throws InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
			this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
	}

	private void readOutput() {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				this.lines.add(line);
			}
		}
		catch (IOException ex) {
			// the process ended
		}
	}

}
