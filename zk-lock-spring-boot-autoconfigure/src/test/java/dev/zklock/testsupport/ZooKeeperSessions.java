package dev.zklock.testsupport;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * Ends sessions of a live client on the server, as a pause longer than the session
 * timeout or a partition would.
 */
public final class ZooKeeperSessions {

	private ZooKeeperSessions() {
	}

	/**
	 * Expire the client's current session: a second connection attaches to the
	 * session and closes it, so the server deletes its ephemeral nodes at once. The
	 * client learns it when it reconnects (Curator reports LOST, then RECONNECTED
	 * with a new session).
	 * @param client a connected client
	 * @return the id of the expired session
	 * @throws Exception when the second connection cannot attach
	 */
	public static long expire(CuratorFramework client) throws Exception {
		ZooKeeper zooKeeper = client.getZookeeperClient().getZooKeeper();
		long sessionId = zooKeeper.getSessionId();
		byte[] password = zooKeeper.getSessionPasswd();
		CountDownLatch connected = new CountDownLatch(1);
		ZooKeeper intruder = new ZooKeeper(client.getZookeeperClient().getCurrentConnectionString(), 10_000,
				(event) -> {
					if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
						connected.countDown();
					}
				}, sessionId, password);
		try {
			if (!connected.await(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Could not attach to session 0x" + Long.toHexString(sessionId));
			}
		}
		finally {
			intruder.close();
		}
		return sessionId;
	}

	/**
	 * The client's current session id, or 0 while it has none.
	 * @param client the client
	 * @return the session id
	 */
	public static long sessionId(CuratorFramework client) {
		try {
			return client.getZookeeperClient().getZooKeeper().getSessionId();
		}
		catch (Exception ex) {
			return 0;
		}
	}

}
