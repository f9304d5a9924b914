package dev.zklock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Free TCP ports on 127.0.0.1. A port is handed out at most once per JVM, so that the
 * fixtures of one test run never pick the same port twice.
 */
public final class FreePorts {

	private static final int ATTEMPTS = 50;

	private static final Set<Integer> handedOut = ConcurrentHashMap.newKeySet();

	private FreePorts() {
	}

	/**
	 * Return a port that was free on 127.0.0.1 a moment ago.
	 * @return the port
	 */
	public static int next() {
		for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
			int port = probe();
			if (handedOut.add(port)) {
				return port;
			}
		}
		throw new IllegalStateException("No unused free port on 127.0.0.1 after " + ATTEMPTS + " attempts");
	}

	/**
	 * The loopback address every fixture binds to.
	 * @return 127.0.0.1
	 */
	public static InetAddress loopback() {
		try {
			return InetAddress.getByAddress("127.0.0.1", new byte[] { 127, 0, 0, 1 });
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static int probe() {
		try (ServerSocket socket = new ServerSocket()) {
			socket.bind(new InetSocketAddress(loopback(), 0));
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not bind a free port on 127.0.0.1", ex);
		}
	}

}
