package dev.zklock.autoconfigure;

import dev.zklock.embedded.EmbeddedZooKeeper;

/**
 * {@link ZooKeeperConnectionDetails} pointing at the {@link EmbeddedZooKeeper}.
 */
final class EmbeddedZooKeeperConnectionDetails implements ZooKeeperConnectionDetails {

	private final EmbeddedZooKeeper server;

	EmbeddedZooKeeperConnectionDetails(EmbeddedZooKeeper server) {
		this.server = server;
	}

	@Override
	public String getConnectString() {
		return this.server.getConnectString();
	}

}
