package org.apache.zookeeper;

import java.io.IOException;

import org.apache.jute.Record;
import org.apache.zookeeper.client.HostProvider;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.RequestHeader;

import dev.zklock.bench.OpCounts;

/**
 * A ZooKeeper client that counts the requests it sends by type
 * ({@link OpCounts}): one counter increment per request, pings left out. It lives in
 * ZooKeeper's package because the hook, {@code createConnection}, and the request
 * path, {@code ClientCnxn.queuePacket}, are visible only there. Benchmarks only.
 */
public class CountingZooKeeper extends ZooKeeper {

	/**
	 * Connect, as {@link ZooKeeper#ZooKeeper(String, int, Watcher, boolean, ZKClientConfig)}.
	 * @param connectString the servers
	 * @param sessionTimeout the session timeout, ms
	 * @param watcher the default watcher
	 * @param canBeReadOnly whether a read-only server will do
	 * @param config the client configuration
	 * @throws IOException when the connection cannot be set up
	 */
	public CountingZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly,
			ZKClientConfig config) throws IOException {
		super(connectString, sessionTimeout, watcher, canBeReadOnly, config);
	}

	@Override
	ClientCnxn createConnection(String chrootPath, HostProvider hostProvider, int sessionTimeout,
			ZKClientConfig clientConfig, Watcher defaultWatcher, ClientCnxnSocket clientCnxnSocket,
			boolean canBeReadOnly) throws IOException {
		return new CountingClientCnxn(chrootPath, hostProvider, sessionTimeout, clientConfig, defaultWatcher,
				clientCnxnSocket, canBeReadOnly);
	}

	private static final class CountingClientCnxn extends ClientCnxn {

		CountingClientCnxn(String chrootPath, HostProvider hostProvider, int sessionTimeout,
				ZKClientConfig clientConfig, Watcher defaultWatcher, ClientCnxnSocket clientCnxnSocket,
				boolean canBeReadOnly) throws IOException {
			super(chrootPath, hostProvider, sessionTimeout, clientConfig, defaultWatcher, clientCnxnSocket,
					canBeReadOnly);
		}

		// Every request, synchronous or not, goes through this overload
		@Override
		public Packet queuePacket(RequestHeader h, ReplyHeader r, Record request, Record response, AsyncCallback cb,
				String clientPath, String serverPath, Object ctx, ZooKeeper.WatchRegistration watchRegistration,
				WatchDeregistration watchDeregistration) {
			if (h != null) {
				OpCounts.sent(h.getType());
			}
			return super.queuePacket(h, r, request, response, cb, clientPath, serverPath, ctx, watchRegistration,
					watchDeregistration);
		}

	}

}
