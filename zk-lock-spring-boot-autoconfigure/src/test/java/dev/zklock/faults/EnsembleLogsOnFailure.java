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

	private final Supplier<FaultLab> lab;

	EnsembleLogsOnFailure(Supplier<FaultLab> lab) {
		this.lab = lab;
	}

	@Override
	public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
		FaultLab current = this.lab.get();
		if (current == null) {
			throw failure;
		}
		List<Path> logs;
		try {
			logs = current.keepEnsembleLogs();
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
			throw failure;
		}
		String message = (failure instanceof AssertionError) ? failure.getMessage() : failure.toString();
		throw new AssertionError(message + System.lineSeparator() + "The ensemble members' logs: " + logs, failure);
	}

}
