package dev.zklock.testsupport;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Makes sure that the processes the fixtures launch end: waits for their exit, and kills
 * those still running when the test JVM shuts down.
 */
final class ProcessExits {

	static final Duration EXIT_TIMEOUT = Duration.ofSeconds(15);

	private static final Set<JvmProcess> running = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(() -> running.forEach(JvmProcess::kill), "jvm-process-reaper"));
	}

	private ProcessExits() {
	}

	static void started(JvmProcess process) {
		running.add(process);
	}

	static void ended(JvmProcess process) {
		running.remove(process);
	}

	/**
	 * Wait for a process to exit.
	 * @param process the process
	 * @param timeout the longest wait
	 * @return whether it exited in time; {@code false} too when interrupted
	 */
	static boolean waitFor(Process process, Duration timeout) {
		try {
			return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * Wait for a process sent SIGKILL to have gone.
	 * @param process the process
	 * @param name its name, for error messages
	 * @throws IllegalStateException when it is still there after {@link #EXIT_TIMEOUT}
	 */
	static void awaitKilled(Process process, String name) {
		try {
			if (!process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException(name + " (pid " + process.pid() + ") did not exit within "
						+ EXIT_TIMEOUT.toSeconds() + " s of SIGKILL");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for " + name + " to exit", ex);
		}
	}

}
