package dev.zklock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link UnsupportedZooKeeperServerException}: the server version, the
 * missing operation and the supported versions.
 */
class UnsupportedZooKeeperServerFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedZooKeeperServerException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedZooKeeperServerException cause) {
		String description = ("zk-lock's ZooKeeper client is connected to '%s', which runs %s. That server lacks the "
				+ "'%s' operation (create returning the node's stat, added in ZooKeeper 3.5), which every zk-lock "
				+ "lock uses.").formatted(cause.getConnectString(), cause.getServerVersion(),
						UnsupportedZooKeeperServerException.MISSING_OPERATION);
		String action = "Run ZooKeeper 3.5 or newer (zk-lock is tested against 3.5.10 and 3.9), or point zk-lock at "
				+ "such an ensemble with 'zk-lock.connect-string' (zk-lock.client-mode=dedicated).";
		return new FailureAnalysis(description, action, cause);
	}

}
