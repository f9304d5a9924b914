package dev.zklock.testsupport;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * ZooKeeper's length-prefixed packets as the {@link ZooKeeperProxy} sees them: read and
 * written whole, and the few request fields it looks at (xid, operation, the path of a create or a read).
 * The first packet of a connection is the connect request, which has none of them.
 */
final class ZooKeeperPackets {

	private static final int MAX_PACKET = 16 * 1024 * 1024;

	private static final int DELETE = 2;

	// create, create2, createContainer, createTTL
	static final Set<Integer> CREATES = Set.of(1, 15, 19, 21);

	// getData: the read that sets a data watch
	static final Set<Integer> GET_DATA = Set.of(4);

	private ZooKeeperPackets() {
	}

	/**
	 * Read one packet.
	 * @param in the stream
	 * @return the packet without its length, or {@code null} at the end of the stream
	 * @throws IOException when the stream fails or holds no ZooKeeper packet
	 */
	static byte @Nullable [] read(DataInputStream in) throws IOException {
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

	static void write(byte[] packet, DataOutputStream out) throws IOException {
		out.writeInt(packet.length);
		out.write(packet);
		out.flush();
	}

	// a request's xid, which its reply repeats
	static int xid(byte[] packet) {
		return readInt(packet, 0);
	}

	static boolean isDelete(byte[] request) {
		return request.length >= 8 && readInt(request, 4) == DELETE;
	}

	/**
	 * The path of a request of one of the given operations: the path a create
	 * creates, or the path a read reads; both come first in the request's body.
	 * @param request the request
	 * @param operations the operation codes
	 * @return the path, or {@code null} when the request is none of them
	 */
	static @Nullable String path(byte[] request, Set<Integer> operations) {
		if (request.length < 12 || !operations.contains(readInt(request, 4))) {
			return null;
		}
		int length = readInt(request, 8);
		if (length < 0 || 12 + length > request.length) {
			return null;
		}
		return new String(request, 12, length, StandardCharsets.UTF_8);
	}

	private static int readInt(byte[] bytes, int offset) {
		return ByteBuffer.wrap(bytes, offset, 4).getInt();
	}

}
