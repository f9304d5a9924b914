package dev.zklock.autoconfigure;

import dev.zklock.embedded.EmbeddedZooKeeperException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link EmbeddedZooKeeperException}: why the embedded server did not start
 * and what to do.
 */
class EmbeddedZooKeeperFailureAnalyzer extends AbstractFailureAnalyzer<EmbeddedZooKeeperException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, EmbeddedZooKeeperException cause) {
		return new FailureAnalysis(cause.getMessage() + ".", cause.getAction(), cause);
	}

}
