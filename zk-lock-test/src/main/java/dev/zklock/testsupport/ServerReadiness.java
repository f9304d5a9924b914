package dev.zklock.testsupport;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The one readiness check of the server fixtures: a server is ready when the mode that
 * it reports to {@code srvr} is one that serves clients. A wait for a server that runs
 * in a process of its own ends at once when that process exits.
 */
final class ServerReadiness {

	private ServerReadiness() {
	}

	/**
	 * Wait until the server reports a serving mode.
	 * @param server the server, for the error message
	 * @param timeout the longest wait
	 * @param mode reads the server's current mode
	 * @param serving the modes that count as ready
	 * @param process the server's process, or {@code null} when it runs in the test JVM
	 * @throws IllegalStateException when the server does not serve in time or its
	 * process exits
	 */
	static void await(Object server, Duration timeout, Supplier<ServerMode> mode, Predicate<ServerMode> serving,
			@Nullable JvmProcess process) {
		Poll.until(server + " to serve", timeout, () -> {
			if (process != null) {
				process.requireNotExited();
			}
			return serving.test(mode.get());
		}, () -> (process != null) ? process.diagnostics() : "Mode: " + mode.get());
	}

}
