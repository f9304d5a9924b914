package dev.zklock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * An in-process TCP proxy in front of ZooKeeper servers, one listening port on
 * 127.0.0.1 per server, so that a client given {@link #connectString()} reaches the
 * servers through it. It can pass traffic, blackhole it (nothing goes through in
 * either direction, connections stay open, and what was held back is delivered on
 * {@link #pass()}, as after a network partition heals) or reset every connection
 * (RST on both sides).
 * <p>
 * It reads ZooKeeper's length-prefixed packets, so it can also reset a connection
 * exactly around the client's next {@code delete} request: before the request reaches
 * the server, or after the server has executed it but before its reply reaches the
 * client. {@link #close()} resets every connection and stops listening.
 *
 * <pre class="code">
 * try (ZooKeeperProxy proxy = ZooKeeperProxy.start("worker 1", ensemble)) {
 *     // the client connects to proxy.connectString()
 *     proxy.blackhole();
 *     proxy.pass();
 * }
 * </pre>
 */
public final class ZooKeeperProxy implements AutoCloseable {

	private final String name;

	private final List<Listener> listeners = new ArrayList<>();

	private final Set<ProxyLink> links = ConcurrentHashMap.newKeySet();

	private final ProxyGate gate = new ProxyGate();

	private final PacketTraps traps = new PacketTraps();

	private final AtomicInteger connections = new AtomicInteger();

	private volatile boolean closed;

	private ZooKeeperProxy(String name) {
		this.name = name;
	}

	/**
	 * Start a proxy in front of every member of an ensemble.
	 * @param name the name used in thread names and messages
	 * @param ensemble the ensemble
	 * @return the running proxy, passing traffic
	 */
	public static ZooKeeperProxy start(String name, ZooKeeperEnsemble ensemble) {
		return start(name, ensemble.members().stream().map(ZooKeeperEnsemble.Member::clientPort).toList());
	}

	/**
	 * Start a proxy in front of servers on 127.0.0.1.
	 * @param name the name used in thread names and messages
	 * @param serverPorts the servers' client ports
	 * @return the running proxy, passing traffic
	 */
	public static ZooKeeperProxy start(String name, List<Integer> serverPorts) {
		return ServerOptions.startOrClose(new ZooKeeperProxy(name), (proxy) -> {
			for (int port : serverPorts) {
				proxy.listeners.add(proxy.new Listener(port));
			}
		});
	}

	/**
	 * The connection string that lists the proxy's ports, in the servers' order.
	 * @return the connection string
	 */
	public String connectString() {
		return this.listeners.stream()
			.map((listener) -> "127.0.0.1:" + listener.server.getLocalPort())
			.collect(Collectors.joining(","));
	}

	/**
	 * Let traffic through again, delivering what was held back.
	 */
	public void pass() {
		this.gate.pass();
	}

	/**
	 * Hold back all traffic in both directions until {@link #pass()}. Connections stay
	 * open and new ones are accepted, but nothing reaches the other side.
	 */
	public void blackhole() {
		this.gate.blackhole();
	}

	/**
	 * Wait until the servers have sent the client nothing for {@code quiet}, then
	 * blackhole at once: no reply can slip through between the check and the
	 * blackhole. A client that then hears nothing for its read timeout (two thirds of
	 * its session timeout) disconnects, even inside a blackhole shorter than that.
	 * @param quiet how long the client must have heard nothing
	 * @param timeout the longest wait for such a moment
	 * @return how long the client had heard nothing when the blackhole began, in
	 * nanoseconds
	 * @throws IllegalStateException when no such moment comes in time
	 */
	public long blackholeWhenQuiet(Duration quiet, Duration timeout) {
		return this.gate.blackholeWhenQuiet(quiet, timeout, this);
	}

	/**
	 * Whether traffic is held back.
	 * @return whether the proxy blackholes
	 */
	public boolean isBlackholed() {
		return this.gate.isBlackholed();
	}

	/**
	 * Reset every open connection: both the client and the server get a TCP RST.
	 * @return the number of connections reset
	 */
	public int reset() {
		int count = 0;
		for (ProxyLink link : this.links) {
			if (link.reset()) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Reset the connection that carries the client's next {@code delete} request.
	 * @param afterExecution {@code false} to reset before the request reaches the
	 * server, so that the node stays; {@code true} to let the server execute it and
	 * reset before its reply reaches the client
	 * @return completes with {@link System#nanoTime()} of the reset
	 */
	public CompletableFuture<Long> resetOnNextDelete(boolean afterExecution) {
		return this.traps.armDelete(afterExecution);
	}

	/**
	 * Blackhole all traffic as the client's next {@code create} of a path that
	 * contains {@code pathPart} goes through: the server executes it, but its reply,
	 * and everything after it, is held back until {@link #pass()}. The client so
	 * sent a create whose response it has not seen, as when a connection fails
	 * mid-request.
	 * @param pathPart a part of the path to create
	 * @return completes with {@link System#nanoTime()} once the create was let
	 * through and the proxy blackholes
	 */
	public CompletableFuture<Long> blackholeAfterNextCreate(String pathPart) {
		return this.traps.armRequest(ZooKeeperPackets.CREATES, pathPart);
	}

	/**
	 * Blackhole all traffic as the client's next {@code getData} of a path that
	 * contains {@code pathPart} goes through, as {@link #blackholeAfterNextCreate}
	 * does for a create: the server sets the watch, but the client has not seen the
	 * answer. Replaces an armed create trap.
	 * @param pathPart a part of the path to read
	 * @return completes with {@link System#nanoTime()} once the read was let through
	 * and the proxy blackholes
	 */
	public CompletableFuture<Long> blackholeAfterNextGetData(String pathPart) {
		return this.traps.armRequest(ZooKeeperPackets.GET_DATA, pathPart);
	}

	/**
	 * The number of client connections accepted so far.
	 * @return the count
	 */
	public int connectionsAccepted() {
		return this.connections.get();
	}

	/**
	 * Reset every connection and stop listening.
	 */
	@Override
	public void close() {
		this.closed = true;
		pass();
		for (Listener listener : this.listeners) {
			listener.close();
		}
		reset();
	}

	@Override
	public String toString() {
		return "ZooKeeperProxy[" + this.name + " " + connectString() + "]";
	}

	/**
	 * One listening port, in front of one server.
	 */
	private final class Listener {

		private final ServerSocket server;

		private final int targetPort;

		Listener(int targetPort) {
			this.targetPort = targetPort;
			try {
				this.server = new ServerSocket();
				this.server.bind(new InetSocketAddress(FreePorts.loopback(), 0));
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not listen on 127.0.0.1 for " + ZooKeeperProxy.this.name, ex);
			}
			ProxyLink.daemon("proxy " + ZooKeeperProxy.this.name + " :" + this.server.getLocalPort(),
					this::acceptLoop);
		}

		private void acceptLoop() {
			while (!ZooKeeperProxy.this.closed) {
				Socket client;
				try {
					client = this.server.accept();
				}
				catch (IOException ex) {
					return;
				}
				ZooKeeperProxy.this.connections.incrementAndGet();
				ProxyLink link = new ProxyLink(client, ZooKeeperProxy.this.name, ZooKeeperProxy.this.gate,
						ZooKeeperProxy.this.traps, ZooKeeperProxy.this.links);
				ZooKeeperProxy.this.links.add(link);
				ProxyLink.daemon("proxy " + ZooKeeperProxy.this.name + " link", () -> link.open(this.targetPort));
			}
		}

		void close() {
			try {
				this.server.close();
			}
			catch (IOException ex) {
				// closing anyway
			}
		}

	}

}
