package dev.zklock.testsupport;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

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
	 * Make the client take its session for expired while the server keeps it: what
	 * Curator itself does once a session timeout has passed while suspended, before
	 * the server may have noticed. Curator reports LOST, then RECONNECTED with a new
	 * session, and the old session's ephemeral nodes stay listed, owned by the old
	 * session, until the server expires it (one session timeout after its last
	 * traffic) or someone deletes them. Curator's close of the old handle may race
	 * with the injection and close the session on the server after all; use
	 * {@link #expireOnClient(CuratorFramework, ZooKeeperProxy)} where that matters.
	 * @param client a connected client
	 * @return the id of the session the client gave up
	 * @throws Exception when the client has no ZooKeeper handle
	 */
	public static long expireOnClient(CuratorFramework client) throws Exception {
		ZooKeeper zooKeeper = client.getZookeeperClient().getZooKeeper();
		long sessionId = zooKeeper.getSessionId();
		zooKeeper.getTestable().injectSessionExpiration();
		return sessionId;
	}

	/**
	 * Make the client take its session for expired, as {@link #expireOnClient}
	 * does, for a client connected through {@code proxy}, and make sure the server
	 * keeps the session: the proxy holds back what the old connection sends while
	 * Curator closes it (a close of the session, when that races with the injected
	 * expiry), then resets it, so the server sees only a dropped connection.
	 * @param client a client connected through {@code proxy}
	 * @param proxy the proxy, passing traffic
	 * @return the id of the session the client gave up
	 * @throws Exception when the client has no ZooKeeper handle
	 */
	public static long expireOnClient(CuratorFramework client, ZooKeeperProxy proxy) throws Exception {
		proxy.blackhole();
		ZooKeeper old = client.getZookeeperClient().getZooKeeper();
		long sessionId = expireOnClient(client);
		// Curator closes the old handle and opens a new one when it sees the expiry
		Poll.until("Curator to replace the expired ZooKeeper handle", Duration.ofSeconds(10),
				() -> currentHandle(client) != old, () -> "");
		proxy.reset();
		proxy.pass();
		return sessionId;
	}

	private static @Nullable ZooKeeper currentHandle(CuratorFramework client) {
		try {
			return client.getZookeeperClient().getZooKeeper();
		}
		catch (Exception ex) {
			return null;
		}
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
