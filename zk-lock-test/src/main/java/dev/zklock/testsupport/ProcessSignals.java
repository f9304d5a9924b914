package dev.zklock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Sends Unix signals, such as {@code SIGSTOP} and {@code SIGCONT}, with the {@code kill}
 * command, which {@link Process} cannot send.
 */
final class ProcessSignals {

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

}
