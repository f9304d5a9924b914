package dev.zklock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link ZkLockClientModeException}: the contradicting settings and how to
 * resolve them.
 */
class ZkLockClientModeFailureAnalyzer extends AbstractFailureAnalyzer<ZkLockClientModeException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ZkLockClientModeException cause) {
		return new FailureAnalysis(cause.getReason(), cause.getAction(), cause);
	}

}
