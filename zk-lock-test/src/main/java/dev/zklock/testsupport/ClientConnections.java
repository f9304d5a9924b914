package dev.zklock.testsupport;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;

/**
 * Starts a test's Curator client and waits for its first connection, so that a test
 * never begins on a client that is still connecting.
 */
public final class ClientConnections {

	private ClientConnections() {
	}

	/**
	 * Start the client and wait until it is connected; close it when it is not.
	 * @param client the client, not started
	 * @param timeout the longest wait
	 * @return the connected client
	 * @throws IllegalStateException when it does not connect in time or the wait is
	 * interrupted
	 */
	public static CuratorFramework started(CuratorFramework client, Duration timeout) {
		client.start();
		String connectString = client.getZookeeperClient().getCurrentConnectionString();
		try {
			if (!client.blockUntilConnected(Math.toIntExact(timeout.toMillis()), TimeUnit.MILLISECONDS)) {
				client.close();
				throw new IllegalStateException("Test client did not connect to " + connectString);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			client.close();
			throw new IllegalStateException(ex);
		}
		return client;
	}

}
