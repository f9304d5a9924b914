package dev.zklock.core;

import java.util.Map;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.compatibility.OldZooKeeperServer;

/**
 * One ZooKeeper 3.5 server, the oldest supported line, for every test class of the
 * run: started on first use, closed when the test JVM exits. Its container sweep runs
 * every 100 ms.
 */
final class ZooKeeper35 {

	private static OldZooKeeperServer server;

	private ZooKeeper35() {
	}

	static synchronized OldZooKeeperServer server() {
		if (server == null) {
			// a fast container sweep, so that tests can wait for it
			OldZooKeeperServer started = OldZooKeeperServer.start("3.5",
					Map.of("znode.container.checkIntervalMs", "100", "znode.container.maxPerMinute", "1000000"));
			Runtime.getRuntime().addShutdownHook(new Thread(started::close, "zookeeper-3.5 shutdown"));
			server = started;
		}
		return server;
	}

	static CuratorFramework connect() throws InterruptedException {
		return ZooKeeperTestSupport.startClient(server().connectString());
	}

}
