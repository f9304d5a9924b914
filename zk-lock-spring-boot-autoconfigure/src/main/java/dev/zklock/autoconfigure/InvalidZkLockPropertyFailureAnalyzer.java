package dev.zklock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link InvalidZkLockPropertyException}: which property, which value, why,
 * and how to fix it.
 */
class InvalidZkLockPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidZkLockPropertyException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidZkLockPropertyException cause) {
		String description = "Invalid value '%s' for property '%s': %s.".formatted(cause.getValue(),
				cause.getProperty(), cause.getReason());
		return new FailureAnalysis(description, cause.getAction(), cause);
	}

}
