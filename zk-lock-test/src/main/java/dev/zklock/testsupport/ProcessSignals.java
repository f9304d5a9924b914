package dev.zklock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;

/**
 * Sends Unix signals, such as {@code SIGSTOP} and {@code SIGCONT}, with the {@code kill}
 * command, which {@link Process} cannot send, and tells when a stop has taken hold.
 */
final class ProcessSignals {

	private static final Path PROC = Paths.get("/proc");

	private static final Duration POLL_INTERVAL = Duration.ofMillis(1);

	private ProcessSignals() {
	}

	/**
	 * Send a signal and wait until {@code kill} has sent it.
	 * @param pid the process id
	 * @param signal the signal's name without {@code SIG}, such as {@code STOP}
	 * @param name the process's name, for error messages
	 * @throws IllegalStateException when {@code kill} fails
	 */
	static void send(long pid, String signal, String name) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true)
				.start();
			String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			if (kill.waitFor() != 0) {
				throw new IllegalStateException("'kill -" + signal + " " + pid + "' failed for " + name + ": " + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run 'kill -" + signal + " " + pid + "' for " + name, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while signalling " + name, ex);
		}
	}

	/**
	 * Wait until every thread of a process has stopped. {@code kill -STOP} returns once
	 * the signal is queued, but a process stops as a group: one thread takes the
	 * signal and then stops the others, and on a busy machine that thread may wait for
	 * a CPU while the others go on answering requests.
	 * @param pid the process id
	 * @param name the process's name, for error messages
	 * @param timeout the longest wait
	 * @throws IllegalStateException when a thread still runs after the timeout
	 */
	static void awaitStopped(long pid, String name, Duration timeout) {
		Path tasks = PROC.resolve(Long.toString(pid)).resolve("task");
		if (!Files.isDirectory(PROC)) {
			// not Linux: nothing to read, so the stop is taken on trust
			return;
		}
		AtomicReference<List<String>> running = new AtomicReference<>(List.of());
		try {
			// a stop takes hold within milliseconds, and a pause waits for it, so look often
			await().atMost(timeout).pollDelay(Duration.ZERO).pollInterval(POLL_INTERVAL).until(() -> {
				List<String> now = runningThreads(tasks);
				running.set(now);
				return now.isEmpty();
			});
		}
		catch (ConditionTimeoutException ex) {
			throw new IllegalStateException(name + " (pid " + pid + ") did not stop within " + timeout
					+ " of SIGSTOP; threads still running: " + running.get(), ex);
		}
	}

	// the threads whose state is neither stopped, traced, zombie nor dead, with their state letter
	private static List<String> runningThreads(Path tasks) {
		List<String> running = new ArrayList<>();
		try (Stream<Path> threads = Files.list(tasks)) {
			for (Path thread : (Iterable<Path>) threads::iterator) {
				char state = state(thread.resolve("stat"));
				if ("TtZX".indexOf(state) < 0) {
					running.add(thread.getFileName() + ":" + state);
				}
			}
		}
		catch (NoSuchFileException ex) {
			// the process is gone: nothing runs
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + tasks, ex);
		}
		return running;
	}

	// the state letter follows the command name, which is in parentheses and may hold any character
	private static char state(Path stat) throws IOException {
		try {
			String line = Files.readString(stat, StandardCharsets.UTF_8);
			int end = line.lastIndexOf(')');
			return (end >= 0 && end + 2 < line.length()) ? line.charAt(end + 2) : 'X';
		}
		catch (NoSuchFileException ex) {
			// the thread ended between the listing and the read
			return 'X';
		}
	}

}
