package dev.zklock.testsupport;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.zklock.testsupport.PacketTraps.RequestTrap;
import dev.zklock.testsupport.PacketTraps.DeleteTrap;

/**
 * One client connection through a {@link ZooKeeperProxy}: a thread pumps the client's
 * requests to the server, another the server's replies back, packet by packet, each
 * held back while the proxy blackholes and each looked at by the proxy's traps.
 */
final class ProxyLink {

	private final Socket client;

	private final String proxyName;

	private final ProxyGate gate;

	private final PacketTraps traps;

	private final Set<ProxyLink> links;

	private volatile @Nullable Socket server;

	private volatile boolean closed;

	private volatile int resetOnReplyXid;

	private volatile @Nullable DeleteTrap replyTrap;

	ProxyLink(Socket client, String proxyName, ProxyGate gate, PacketTraps traps, Set<ProxyLink> links) {
		this.client = client;
		this.proxyName = proxyName;
		this.gate = gate;
		this.traps = traps;
		this.links = links;
	}

	/**
	 * Connect to the server and pump requests until the connection ends; replies are
	 * pumped on a thread of their own.
	 * @param targetPort the server's port on 127.0.0.1
	 */
	void open(int targetPort) {
		try {
			this.client.setTcpNoDelay(true);
			// as in a real partition, the server sees nothing of a connection made while blackholed
			this.gate.awaitPassable(this::isClosed);
			Socket upstream = new Socket();
			upstream.setTcpNoDelay(true);
			upstream.connect(new InetSocketAddress(FreePorts.loopback(), targetPort), 2000);
			this.server = upstream;
			if (this.closed) {
				reset();
				return;
			}
			daemon("proxy " + this.proxyName + " reply pump", () -> pumpReplies(upstream));
			pumpRequests(upstream);
		}
		catch (IOException ex) {
			reset();
		}
	}

	/**
	 * Reset the connection: both sides get a TCP RST.
	 * @return whether it was open
	 */
	boolean reset() {
		boolean wasOpen = !this.closed;
		this.closed = true;
		abort(this.client);
		abort(this.server);
		this.links.remove(this);
		return wasOpen;
	}

	static Thread daemon(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
		return thread;
	}

	private boolean isClosed() {
		return this.closed;
	}

	private void pumpRequests(Socket upstream) {
		try (DataInputStream in = new DataInputStream(new BufferedInputStream(this.client.getInputStream()));
				DataOutputStream out = new DataOutputStream(new BufferedOutputStream(upstream.getOutputStream()))) {
			for (int index = 0;; index++) {
				byte[] packet = ZooKeeperPackets.read(in);
				this.gate.awaitPassable(this::isClosed);
				if (packet == null) {
					return;
				}
				if (index > 0 && ZooKeeperPackets.isDelete(packet) && springDeleteTrap(packet)) {
					return;
				}
				RequestTrap trapped = (index > 0) ? springRequestTrap(packet) : null;
				ZooKeeperPackets.write(packet, out);
				if (trapped != null) {
					trapped.fired().complete(System.nanoTime());
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
				DataOutputStream out = new DataOutputStream(new BufferedOutputStream(this.client.getOutputStream()))) {
			for (int index = 0;; index++) {
				byte[] packet = ZooKeeperPackets.read(in);
				if (packet == null) {
					this.gate.awaitPassable(this::isClosed);
					return;
				}
				DeleteTrap pending = this.replyTrap;
				if (pending != null && index > 0 && packet.length >= 4
						&& ZooKeeperPackets.xid(packet) == this.resetOnReplyXid) {
					reset();
					pending.fired().complete(System.nanoTime());
					return;
				}
				this.gate.forwardReply(packet, out, this::isClosed);
			}
		}
		catch (IOException ex) {
			// reset, or the other side went away
		}
		finally {
			close();
		}
	}

	// true when the request must not be forwarded
	private boolean springDeleteTrap(byte[] request) {
		DeleteTrap armed = this.traps.takeDelete();
		if (armed == null) {
			return false;
		}
		if (!armed.afterExecution()) {
			reset();
			armed.fired().complete(System.nanoTime());
			return true;
		}
		this.resetOnReplyXid = ZooKeeperPackets.xid(request);
		this.replyTrap = armed;
		return false;
	}

	// the trap to report once the request is sent on; blackholes first, so no reply can slip through
	private @Nullable RequestTrap springRequestTrap(byte[] request) {
		RequestTrap armed = this.traps.takeRequest(request);
		if (armed != null) {
			this.gate.blackholeNow();
		}
		return armed;
	}

	private void close() {
		this.closed = true;
		quietlyClose(this.client);
		quietlyClose(this.server);
		this.links.remove(this);
	}

	private static void abort(@Nullable Socket socket) {
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

	private static void quietlyClose(@Nullable Socket socket) {
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
