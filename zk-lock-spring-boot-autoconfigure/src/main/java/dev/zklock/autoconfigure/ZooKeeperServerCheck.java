package dev.zklock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks once connected that the server has what zk-lock needs. Servers before 3.5
 * refuse {@code create2} (KeeperException.Unimplemented on every lock); they also lack
 * the {@code /zookeeper/config} node that 3.5 added, which {@code getConfig} reads
 * without the client's chroot or namespace, so its absence identifies them.
 */
final class ZooKeeperServerCheck {

	private static final Logger logger = LoggerFactory.getLogger(ZooKeeperServerCheck.class);

	private static final int SRVR_TIMEOUT_MILLIS = 1000;

	private ZooKeeperServerCheck() {
	}

	/**
	 * Check the server the client is connected to.
	 * @param client a connected client
	 * @param connectString where it is connected, for the message
	 * @throws UnsupportedZooKeeperServerException when the server is older than 3.5
	 */
	static void check(CuratorFramework client, String connectString) {
		try {
			client.getConfig().forEnsemble();
		}
		catch (KeeperException.NoNodeException ex) {
			throw new UnsupportedZooKeeperServerException(connectString, serverVersion(connectString));
		}
		catch (Exception ex) {
			// cannot tell (no permission, connection lost): the locks will say what is wrong
			logger.debug("zk-lock: could not check the version of ZooKeeper at {}", connectString, ex);
		}
	}

	// Best effort: the 'srvr' four-letter word, which 3.4 servers answer by default
	private static String serverVersion(String connectString) {
		int chroot = connectString.indexOf('/');
		String hosts = (chroot >= 0) ? connectString.substring(0, chroot) : connectString;
		for (String entry : hosts.split(",")) {
			String version = srvrVersion(entry.trim());
			if (version != null) {
				return "ZooKeeper " + version;
			}
		}
		return "a ZooKeeper server older than 3.5 (it has no /zookeeper/config node)";
	}

	private static @Nullable String srvrVersion(String hostAndPort) {
		int colon = hostAndPort.lastIndexOf(':');
		if (colon <= 0 || hostAndPort.endsWith("]")) {
			return null;
		}
		String host = hostAndPort.substring(0, colon).replace("[", "").replace("]", "");
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, Integer.parseInt(hostAndPort.substring(colon + 1))),
					SRVR_TIMEOUT_MILLIS);
			socket.setSoTimeout(SRVR_TIMEOUT_MILLIS);
			OutputStream out = socket.getOutputStream();
			out.write("srvr".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			String answer = new String(in.readNBytes(256), StandardCharsets.UTF_8);
			String prefix = "Zookeeper version: ";
			if (!answer.startsWith(prefix)) {
				return null;
			}
			int end = answer.indexOf('-', prefix.length());
			return answer.substring(prefix.length(), (end > 0) ? end : answer.indexOf('\n', prefix.length()));
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
	}

}
