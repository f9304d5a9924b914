package dev.zklock.autoconfigure;

/**
 * {@link ZooKeeperConnectionDetails} taken from {@code zk-lock.connect-string}.
 */
final class PropertiesZooKeeperConnectionDetails implements ZooKeeperConnectionDetails {

	private final ZkLockProperties properties;

	PropertiesZooKeeperConnectionDetails(ZkLockProperties properties) {
		this.properties = properties;
	}

	@Override
	public String getConnectString() {
		return this.properties.getConnectString();
	}

}
