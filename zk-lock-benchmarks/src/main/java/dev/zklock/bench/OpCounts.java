package dev.zklock.bench;

import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.CountingZooKeeper;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;

import dev.zklock.autoconfigure.CuratorFrameworkBuilderCustomizer;

/**
 * The ZooKeeper requests the benchmark clients send, by type, counted on the shared
 * {@link HandoffBoard} so that a second JVM's count too: every client of the
 * benchmarks is a {@link CountingZooKeeper} (set up by {@link #customizer()}), which
 * calls {@link #sent(int)} once per request. Pings are not counted, so the sum can
 * fall a little short of the server's request count.
 */
public final class OpCounts {

	/**
	 * The types counted, in the order of {@link HandoffBoard#opCounts()}.
	 */
	public static final String[] TYPES = { "create", "getChildren", "getData/exists", "setData", "delete",
			"removeWatches", "sync", "multi", "other" };

	private OpCounts() {
	}

	/**
	 * Count one request.
	 * @param opCode its ZooKeeper operation code
	 */
	public static void sent(int opCode) {
		int type = switch (opCode) {
			case OpCode.ping -> -1;
			case OpCode.create, OpCode.create2, OpCode.createContainer, OpCode.createTTL -> 0;
			case OpCode.getChildren, OpCode.getChildren2 -> 1;
			case OpCode.getData, OpCode.exists -> 2;
			case OpCode.setData -> 3;
			case OpCode.delete, OpCode.deleteContainer -> 4;
			case OpCode.removeWatches, OpCode.checkWatches -> 5;
			case OpCode.sync -> 6;
			case OpCode.multi, OpCode.multiRead -> 7;
			default -> 8;
		};
		if (type >= 0) {
			HandoffBoard.shared().countOp(type);
		}
	}

	/**
	 * The customizer that gives the auto-configured client a {@link CountingZooKeeper}.
	 * @return the customizer
	 */
	static CuratorFrameworkBuilderCustomizer customizer() {
		return (builder) -> builder.zookeeperFactory(new CountingFactory());
	}

	private static final class CountingFactory implements ZookeeperFactory {

		@Override
		public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher,
				boolean canBeReadOnly) throws Exception {
			return new CountingZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly, new ZKClientConfig());
		}

		@Override
		public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly,
				ZKClientConfig config) throws Exception {
			return new CountingZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly, config);
		}

	}

}
