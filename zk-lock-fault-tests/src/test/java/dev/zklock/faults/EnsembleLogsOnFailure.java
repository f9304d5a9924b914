package dev.zklock.faults;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * When a scenario fails, keeps the ensemble members' logs under the lab's directory in
 * {@code target/} and names them in the failure: closing the ensemble deletes the
 * members' own, and a flake must be readable afterwards.
 */
final class EnsembleLogsOnFailure implements TestExecutionExceptionHandler {

	private final Supplier<List<Path>> keepLogs;

	/**
	 * A handler that keeps the logs with the given function.
	 * @param keepLogs copies the members' logs and returns the copies, none before the
	 * lab has started
	 */
	EnsembleLogsOnFailure(Supplier<List<Path>> keepLogs) {
		this.keepLogs = keepLogs;
	}

	@Override
	public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
		List<Path> logs;
		try {
			logs = this.keepLogs.get();
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
			throw failure;
		}
		if (logs.isEmpty()) {
			throw failure;
		}
		String message = (failure instanceof AssertionError) ? failure.getMessage() : failure.toString();
		throw new AssertionError(message + System.lineSeparator() + "The ensemble members' logs: " + logs, failure);
	}

}
