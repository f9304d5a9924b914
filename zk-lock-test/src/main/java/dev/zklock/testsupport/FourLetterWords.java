package dev.zklock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * Sends ZooKeeper four-letter words ({@code srvr}, {@code cons}, {@code mntr}...) to a
 * server on 127.0.0.1. Every call has a connect and a read timeout, so a paused or
 * half-started server cannot hang the caller.
 */
public final class FourLetterWords {

	/**
	 * The four-letter words every fixture allows ({@code 4lw.commands.whitelist}).
	 */
	public static final String WHITELIST = "srvr,stat,cons,mntr,ruok,conf,wchp";

	private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	private static final String NOT_SERVING = "This ZooKeeper instance is not currently serving requests";

	private FourLetterWords() {
	}

	/**
	 * Send a four-letter word and return the whole answer.
	 * @param port the client port on 127.0.0.1
	 * @param word the four-letter word
	 * @return the answer
	 * @throws IOException when the server cannot be reached or does not answer in time
	 */
	public static String send(int port, String word) throws IOException {
		return send(port, word, DEFAULT_TIMEOUT);
	}

	/**
	 * Send a four-letter word and return the whole answer.
	 * @param port the client port on 127.0.0.1
	 * @param word the four-letter word
	 * @param timeout the connect timeout and the read timeout
	 * @return the answer
	 * @throws IOException when the server cannot be reached or does not answer in time
	 */
	public static String send(int port, String word, Duration timeout) throws IOException {
		if (word.length() != 4) {
			throw new IllegalArgumentException("Not a four-letter word: '" + word + "'");
		}
		int millis = Math.toIntExact(timeout.toMillis());
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(FreePorts.loopback(), port), millis);
			socket.setSoTimeout(millis);
			OutputStream out = socket.getOutputStream();
			out.write(word.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
		}
	}

	/**
	 * Ask a server for its mode with {@code srvr}.
	 * @param port the client port on 127.0.0.1
	 * @return the mode, {@link ServerMode#UNREACHABLE} when there is no answer
	 */
	public static ServerMode mode(int port) {
		String answer;
		try {
			answer = send(port, "srvr");
		}
		catch (IOException ex) {
			return ServerMode.UNREACHABLE;
		}
		if (answer.contains(NOT_SERVING)) {
			return ServerMode.NOT_SERVING;
		}
		for (String line : answer.split("\n")) {
			if (line.startsWith("Mode: ")) {
				String mode = line.substring("Mode: ".length()).trim().toUpperCase(Locale.ROOT);
				try {
					return ServerMode.valueOf(mode);
				}
				catch (IllegalArgumentException ex) {
					return ServerMode.NOT_SERVING;
				}
			}
		}
		return ServerMode.UNREACHABLE;
	}

	/**
	 * Ask a serving member for the epoch of its last transaction id with {@code srvr}: each
	 * election that ends with a new leader raises it by one.
	 * @param port the client port on 127.0.0.1
	 * @return the epoch, -1 when the server does not answer or does not serve
	 */
	public static long epoch(int port) {
		try {
			for (String line : send(port, "srvr").split("\n")) {
				if (line.startsWith("Zxid: 0x")) {
					return Long.parseUnsignedLong(line.substring("Zxid: 0x".length()).trim(), 16) >>> 32;
				}
			}
		}
		catch (IOException | NumberFormatException ex) {
			// not serving: no epoch to read
		}
		return -1;
	}

}
