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
 * written whole, and the few request fields it looks at (xid, operation, created path).
 * The first packet of a connection is the connect request, which has none of them.
 */
final class ZooKeeperPackets {

	private static final int MAX_PACKET = 16 * 1024 * 1024;

	private static final int DELETE = 2;

	// create, create2, createContainer, createTTL
	private static final Set<Integer> CREATES = Set.of(1, 15, 19, 21);

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
	 * The path that a create request creates.
	 * @param request the request
	 * @return the path, or {@code null} when the request is no create
	 */
	static @Nullable String createdPath(byte[] request) {
		if (request.length < 12 || !CREATES.contains(readInt(request, 4))) {
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
