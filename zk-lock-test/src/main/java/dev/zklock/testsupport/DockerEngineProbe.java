package dev.zklock.testsupport;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Asks a Docker engine on a Unix socket whether it has a {@code bridge} network,
 * with one plain HTTP request and without Testcontainers, whose client setup itself
 * fails on an engine without one.
 */
final class DockerEngineProbe {

	private DockerEngineProbe() {
	}

	/**
	 * What the engine at a socket says about its {@code bridge} network.
	 * @param socket the engine's Unix socket
	 * @return {@link Bridge#NO_ENGINE} when nothing answers there
	 */
	static Bridge bridge(Path socket) {
		if (!Files.exists(socket)) {
			return Bridge.NO_ENGINE;
		}
		try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
			channel.connect(UnixDomainSocketAddress.of(socket));
			channel.write(ByteBuffer.wrap("GET /networks/bridge HTTP/1.0\r\nHost: docker\r\n\r\n"
				.getBytes(StandardCharsets.US_ASCII)));
			ByteBuffer buffer = ByteBuffer.allocate(64);
			while (buffer.hasRemaining() && channel.read(buffer) > 0) {
				String head = new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII);
				if (head.contains("\r\n")) {
					return status(head);
				}
			}
			return Bridge.NO_ENGINE;
		}
		catch (IOException ex) {
			return Bridge.NO_ENGINE;
		}
	}

	// "HTTP/1.0 200 OK": the network exists; 404: it does not
	static Bridge status(String statusLine) {
		String[] parts = statusLine.split(" ", 3);
		if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
			return Bridge.NO_ENGINE;
		}
		return switch (parts[1]) {
			case "200" -> Bridge.PRESENT;
			case "404" -> Bridge.ABSENT;
			default -> Bridge.UNKNOWN;
		};
	}

	/**
	 * The engine's {@code bridge} network.
	 */
	enum Bridge {

		/** No engine answers. */
		NO_ENGINE,

		/** The engine has a bridge network. */
		PRESENT,

		/** The engine has none, as when started with {@code --bridge=none}. */
		ABSENT,

		/** The engine answered something else, or was not asked (a TCP engine). */
		UNKNOWN

	}

}
