package dev.zklock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link ZooKeeperTlsException}: what failed in TLS, which property to check
 * and what to do.
 */
class ZooKeeperTlsFailureAnalyzer extends AbstractFailureAnalyzer<ZooKeeperTlsException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ZooKeeperTlsException cause) {
		String description = "zk-lock could not connect to ZooKeeper at '%s': %s.".formatted(cause.getConnectString(),
				cause.getReason());
		return new FailureAnalysis(description, cause.getAction(), cause);
	}

}
