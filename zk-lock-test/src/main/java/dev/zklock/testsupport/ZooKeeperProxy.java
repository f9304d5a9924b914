package dev.zklock.testsupport;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

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

	private static final int MAX_PACKET = 16 * 1024 * 1024;

	private static final int DELETE = 2;

	// create, create2, createContainer, createTTL
	private static final Set<Integer> CREATES = Set.of(1, 15, 19, 21);

	private final String name;

	private final List<Listener> listeners = new ArrayList<>();

	private final Set<Link> links = ConcurrentHashMap.newKeySet();

	private final Object gate = new Object();

	private final Object replyLock = new Object();

	private volatile long lastForwardedReplyNanos = System.nanoTime();

	private final AtomicInteger connections = new AtomicInteger();

	private final AtomicReference<DeleteTrap> trap = new AtomicReference<>();

	private final AtomicReference<CreateTrap> createTrap = new AtomicReference<>();

	private volatile boolean blackholed;

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
		ZooKeeperProxy proxy = new ZooKeeperProxy(name);
		try {
			for (int port : serverPorts) {
				proxy.listeners.add(proxy.new Listener(port));
			}
		}
		catch (RuntimeException ex) {
			proxy.close();
			throw ex;
		}
		return proxy;
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
		synchronized (this.gate) {
			this.blackholed = false;
			this.gate.notifyAll();
		}
	}

	/**
	 * Hold back all traffic in both directions until {@link #pass()}. Connections stay
	 * open and new ones are accepted, but nothing reaches the other side.
	 */
	public void blackhole() {
		this.blackholed = true;
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
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() - deadline < 0) {
			synchronized (this.replyLock) {
				long silent = System.nanoTime() - this.lastForwardedReplyNanos;
				if (silent >= quiet.toNanos()) {
					this.blackholed = true;
					return silent;
				}
			}
			synchronized (this.gate) {
				try {
					this.gate.wait(2);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("Interrupted while waiting for a quiet moment", ex);
				}
			}
		}
		throw new IllegalStateException("The servers never stayed quiet for " + quiet.toMillis() + " ms within "
				+ timeout.toMillis() + " ms through " + this);
	}

	/**
	 * Whether traffic is held back.
	 * @return whether the proxy blackholes
	 */
	public boolean isBlackholed() {
		return this.blackholed;
	}

	/**
	 * Reset every open connection: both the client and the server get a TCP RST.
	 * @return the number of connections reset
	 */
	public int reset() {
		int count = 0;
		for (Link link : this.links) {
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
		DeleteTrap next = new DeleteTrap(afterExecution);
		DeleteTrap previous = this.trap.getAndSet(next);
		if (previous != null) {
			previous.fired.cancel(false);
		}
		return next.fired;
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
		CreateTrap next = new CreateTrap(pathPart);
		CreateTrap previous = this.createTrap.getAndSet(next);
		if (previous != null) {
			previous.fired.cancel(false);
		}
		return next.fired;
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

	private void awaitPassable(Link link) throws IOException {
		if (!this.blackholed) {
			return;
		}
		synchronized (this.gate) {
			while (this.blackholed && !link.isClosed()) {
				try {
					this.gate.wait(100);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IOException("Interrupted while blackholed", ex);
				}
			}
		}
		if (link.isClosed()) {
			throw new IOException("Connection reset while blackholed");
		}
	}

	private static Thread daemon(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
		return thread;
	}

	private static int readInt(byte[] bytes, int offset) {
		return ByteBuffer.wrap(bytes, offset, 4).getInt();
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
			daemon("proxy " + ZooKeeperProxy.this.name + " :" + this.server.getLocalPort(), this::acceptLoop);
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
				Link link = new Link(client);
				ZooKeeperProxy.this.links.add(link);
				daemon("proxy " + ZooKeeperProxy.this.name + " link", () -> link.open(this.targetPort));
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

	/**
	 * One proxied client connection.
	 */
	private final class Link {

		private final Socket client;

		private volatile @Nullable Socket server;

		private volatile boolean closed;

		private volatile int resetOnReplyXid;

		private volatile @Nullable DeleteTrap replyTrap;

		Link(Socket client) {
			this.client = client;
		}

		boolean isClosed() {
			return this.closed;
		}

		void open(int targetPort) {
			try {
				this.client.setTcpNoDelay(true);
				// as in a real partition, the server sees nothing of a connection made while blackholed
				awaitPassable(this);
				Socket upstream = new Socket();
				upstream.setTcpNoDelay(true);
				upstream.connect(new InetSocketAddress(FreePorts.loopback(), targetPort), 2000);
				this.server = upstream;
				if (this.closed) {
					reset();
					return;
				}
				daemon("proxy " + ZooKeeperProxy.this.name + " reply pump", () -> pumpReplies(upstream));
				pumpRequests(upstream);
			}
			catch (IOException ex) {
				reset();
			}
		}

		private void pumpRequests(Socket upstream) {
			try (DataInputStream in = new DataInputStream(new BufferedInputStream(this.client.getInputStream()));
					DataOutputStream out = new DataOutputStream(
							new BufferedOutputStream(upstream.getOutputStream()))) {
				for (int index = 0;; index++) {
					byte[] packet = readPacket(in);
					awaitPassable(this);
					if (packet == null) {
						return;
					}
					if (index > 0 && packet.length >= 8 && readInt(packet, 4) == DELETE && springTrap(packet)) {
						return;
					}
					CreateTrap created = (index > 0 && packet.length >= 12 && CREATES.contains(readInt(packet, 4)))
							? springCreateTrap(packet) : null;
					out.writeInt(packet.length);
					out.write(packet);
					out.flush();
					if (created != null) {
						created.fired.complete(System.nanoTime());
					}
				}
			}
			catch (IOException ex) {
				// reset, or the other side went away
			}
			finally {
				close();
			}
		}

		private void pumpReplies(Socket upstream) {
			try (DataInputStream in = new DataInputStream(new BufferedInputStream(upstream.getInputStream()));
					DataOutputStream out = new DataOutputStream(
							new BufferedOutputStream(this.client.getOutputStream()))) {
				for (int index = 0;; index++) {
					byte[] packet = readPacket(in);
					if (packet == null) {
						awaitPassable(this);
						return;
					}
					DeleteTrap pending = this.replyTrap;
					if (pending != null && index > 0 && packet.length >= 4
							&& readInt(packet, 0) == this.resetOnReplyXid) {
						reset();
						pending.fired.complete(System.nanoTime());
						return;
					}
					forwardReply(packet, out);
				}
			}
			catch (IOException ex) {
				// reset, or the other side went away
			}
			finally {
				close();
			}
		}

		private void forwardReply(byte[] packet, DataOutputStream out) throws IOException {
			while (true) {
				synchronized (ZooKeeperProxy.this.replyLock) {
					if (!ZooKeeperProxy.this.blackholed) {
						writePacket(packet, out);
						return;
					}
				}
				awaitPassable(this);
			}
		}

		private void writePacket(byte[] packet, DataOutputStream out) throws IOException {
			out.writeInt(packet.length);
			out.write(packet);
			out.flush();
			ZooKeeperProxy.this.lastForwardedReplyNanos = System.nanoTime();
		}

		// true when the request must not be forwarded
		private boolean springTrap(byte[] request) {
			DeleteTrap armed = ZooKeeperProxy.this.trap.get();
			if (armed == null || !ZooKeeperProxy.this.trap.compareAndSet(armed, null)) {
				return false;
			}
			if (!armed.afterExecution) {
				reset();
				armed.fired.complete(System.nanoTime());
				return true;
			}
			this.resetOnReplyXid = readInt(request, 0);
			this.replyTrap = armed;
			return false;
		}

		// the trap to report once the create is sent on; blackholes first, so no reply can slip through
		private @Nullable CreateTrap springCreateTrap(byte[] request) {
			CreateTrap armed = ZooKeeperProxy.this.createTrap.get();
			if (armed == null) {
				return null;
			}
			int length = readInt(request, 8);
			if (length < 0 || 12 + length > request.length) {
				return null;
			}
			String path = new String(request, 12, length, StandardCharsets.UTF_8);
			if (!path.contains(armed.pathPart) || !ZooKeeperProxy.this.createTrap.compareAndSet(armed, null)) {
				return null;
			}
			synchronized (ZooKeeperProxy.this.replyLock) {
				ZooKeeperProxy.this.blackholed = true;
			}
			return armed;
		}

		private byte @Nullable [] readPacket(DataInputStream in) throws IOException {
			int length;
			try {
				length = in.readInt();
			}
			catch (EOFException ex) {
				return null;
			}
			if (length < 0 || length > MAX_PACKET) {
				throw new IOException("Not a ZooKeeper packet: length " + length);
			}
			byte[] packet = new byte[length];
			in.readFully(packet);
			return packet;
		}

		boolean reset() {
			boolean wasOpen = !this.closed;
			this.closed = true;
			abort(this.client);
			abort(this.server);
			ZooKeeperProxy.this.links.remove(this);
			return wasOpen;
		}

		private void close() {
			this.closed = true;
			quietlyClose(this.client);
			quietlyClose(this.server);
			ZooKeeperProxy.this.links.remove(this);
		}

		private void abort(@Nullable Socket socket) {
			if (socket == null) {
				return;
			}
			try {
				socket.setSoLinger(true, 0);
			}
			catch (IOException ex) {
				// closed already
			}
			quietlyClose(socket);
		}

		private void quietlyClose(@Nullable Socket socket) {
			if (socket != null) {
				try {
					socket.close();
				}
				catch (IOException ex) {
					// closing anyway
				}
			}
		}

	}

	private static final class CreateTrap {

		private final String pathPart;

		private final CompletableFuture<Long> fired = new CompletableFuture<>();

		CreateTrap(String pathPart) {
			this.pathPart = pathPart;
		}

	}

	private static final class DeleteTrap {

		private final boolean afterExecution;

		private final CompletableFuture<Long> fired = new CompletableFuture<>();

		DeleteTrap(boolean afterExecution) {
			this.afterExecution = afterExecution;
		}

	}

}
