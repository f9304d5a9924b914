package dev.zklock.actuate;

import java.nio.charset.StandardCharsets;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * A resource shared by processes that checks fencing tokens: a ZooKeeper node that
 * keeps the highest token written so far and rejects a write with a lower one.
 * Compare-and-set on the node's version, so two writers cannot both win.
 */
final class FencedRegister {

	private static final int ATTEMPTS = 10;

	private FencedRegister() {
	}

	static void create(CuratorFramework client, String path) throws Exception {
		client.create().creatingParentsIfNeeded().forPath(path, "0".getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Write with a fencing token.
	 * @return whether the write was accepted: no higher token was written before
	 */
	static boolean write(CuratorFramework client, String path, long token) throws Exception {
		for (int i = 0; i < ATTEMPTS; i++) {
			Stat stat = new Stat();
			long highest = Long.parseLong(new String(client.getData().storingStatIn(stat).forPath(path),
					StandardCharsets.UTF_8));
			if (token < highest) {
				return false;
			}
			try {
				client.setData()
					.withVersion(stat.getVersion())
					.forPath(path, Long.toString(token).getBytes(StandardCharsets.UTF_8));
				return true;
			}
			catch (KeeperException.BadVersionException ex) {
				// another writer came first: look again
			}
		}
		throw new IllegalStateException("No write to " + path + " settled in " + ATTEMPTS + " attempts");
	}

}
