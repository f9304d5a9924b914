package dev.zklock.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * Real in-JVM ZooKeeper servers for these tests, bound to 127.0.0.1 only.
 */
final class LocalZooKeeper {

	private LocalZooKeeper() {
	}

	static TestingServer start() throws Exception {
		return start(freePort(), Map.of());
	}

	static TestingServer start(int port, Map<String, Object> serverProperties) throws Exception {
		Map<String, Object> properties = new HashMap<>(serverProperties);
		properties.put("clientPortAddress", "127.0.0.1");
		InstanceSpec spec = new InstanceSpec(null, port, -1, -1, true, -1, -1, -1, properties, "127.0.0.1");
		return new TestingServer(spec, true);
	}

	static String connectString(TestingServer server) {
		return "127.0.0.1:" + server.getPort();
	}

	/**
	 * A port on 127.0.0.1 that nothing listens on (it was free a moment ago).
	 */
	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
