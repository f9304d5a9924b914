package dev.zklock.testsupport;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;

import static org.awaitility.Awaitility.await;

/**
 * The lines a {@link JvmProcess} prints, collected as its
 * {@link JvmProcess.Builder#outputListener(Consumer) output listener}, for tests that
 * wait for a line.
 */
public final class OutputLines implements Consumer<String> {

	private static final Duration GRACE_AFTER_EXIT = Duration.ofSeconds(5);

	// a look at the lines is cheap, and Awaitility's default (100 ms, after 100 ms) adds up over many waits
	private static final Duration POLL_INTERVAL = Duration.ofMillis(10);

	private final List<String> lines = new CopyOnWriteArrayList<>();

	@Override
	public void accept(String line) {
		this.lines.add(line);
	}

	/**
	 * Every line printed so far.
	 * @return the lines
	 */
	public List<String> lines() {
		return List.copyOf(this.lines);
	}

	/**
	 * Wait until the process prints a line that starts with {@code prefix}. A process
	 * that exited fails the wait after a short grace for its last lines.
	 * @param process the process that prints
	 * @param prefix the start of the line
	 * @param timeout the longest wait
	 * @return the line
	 */
	public String awaitLine(JvmProcess process, String prefix, Duration timeout) {
		long[] exitSeen = { 0 };
		try {
			await().atMost(timeout).pollDelay(Duration.ZERO).pollInterval(POLL_INTERVAL).until(() -> {
				if (find(prefix) != null) {
					return true;
				}
				if (!process.isAlive()) {
					long now = System.nanoTime();
					exitSeen[0] = (exitSeen[0] != 0) ? exitSeen[0] : now;
					if (now - exitSeen[0] > GRACE_AFTER_EXIT.toNanos()) {
						throw new AssertionError(process + " exited before printing '" + prefix + "': "
								+ process.diagnostics());
					}
				}
				return false;
			});
		}
		catch (ConditionTimeoutException ex) {
			throw new AssertionError(
					process + " did not print '" + prefix + "' within " + timeout + ": " + process.diagnostics(), ex);
		}
		// lines are only ever added, so the line found by the wait is still there
		return Objects.requireNonNull(find(prefix));
	}

	private @Nullable String find(String prefix) {
		return this.lines.stream().filter((line) -> line.startsWith(prefix)).findFirst().orElse(null);
	}

}
