package dev.zklock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link ZooKeeperNotConnectedException}: names the connection string and
 * lists what to check.
 */
class ZooKeeperNotConnectedFailureAnalyzer extends AbstractFailureAnalyzer<ZooKeeperNotConnectedException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ZooKeeperNotConnectedException cause) {
		String description = "zk-lock could not connect to ZooKeeper at '%s' within %s (zk-lock.startup.wait)."
			.formatted(cause.getConnectString(), ZkLockPropertiesValidator.format(cause.getWait()));
		StringBuilder action = new StringBuilder("Check that:\n");
		action.append("\t- a ZooKeeper server is running and reachable at ").append(cause.getConnectString())
			.append(";\n");
		action.append("\t- 'zk-lock.connect-string' lists that server as host:port[,host:port...];\n");
		if (cause.isTlsEnabled()) {
			action.append("\t- TLS is on (zk-lock.tls.enabled=true): the port is the server's secure client ")
				.append("port (secureClientPort) and 'zk-lock.tls.trust-store' trusts the server certificate;\n");
		}
		else {
			action.append("\t- the port is a plain client port: if the server only accepts TLS, ")
				.append("set 'zk-lock.tls.enabled=true' and 'zk-lock.tls.trust-store';\n");
		}
		if (cause.getAuthScheme() != null) {
			action.append("\t- the server accepts scheme '").append(cause.getAuthScheme())
				.append("' with the credentials in 'zk-lock.auth.credentials';\n");
		}
		action.append("Or raise 'zk-lock.startup.wait', set 'zk-lock.startup.fail-fast=false' to start anyway ")
			.append("while the client keeps retrying in the background, ")
			.append("or set 'zk-lock.embedded.enabled=true' for development.");
		return new FailureAnalysis(description, action.toString(), cause);
	}

}
