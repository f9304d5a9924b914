package dev.zklock.autoconfigure;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Details required to establish a connection to a ZooKeeper ensemble.
 */
public interface ZooKeeperConnectionDetails extends ConnectionDetails {

	/**
	 * The connection string: a comma-separated list of host:port pairs.
	 * @return the connection string
	 */
	String getConnectString();

}
