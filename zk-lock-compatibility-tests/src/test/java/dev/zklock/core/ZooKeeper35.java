package dev.zklock.core;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.compatibility.OldZooKeeperServer;

/**
 * One ZooKeeper 3.5 server, the oldest supported line, for every test class of the
 * run: started on first use, closed when the test JVM exits.
 */
final class ZooKeeper35 {

	private static OldZooKeeperServer server;

	private ZooKeeper35() {
	}

	static synchronized OldZooKeeperServer server() {
		if (server == null) {
			OldZooKeeperServer started = OldZooKeeperServer.start("3.5");
			Runtime.getRuntime().addShutdownHook(new Thread(started::close, "zookeeper-3.5 shutdown"));
			server = started;
		}
		return server;
	}

	static CuratorFramework connect() throws InterruptedException {
		return ZooKeeperTestSupport.startClient(server().connectString());
	}

}
