package dev.zklock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A main class for {@link LoopbackFirewallTests}: on {@code open PORT} it connects to
 * 127.0.0.1:PORT and keeps the connection; on {@code echo} it sends a byte on it and
 * waits for the byte to come back. Prints {@code ok ...} or {@code failed ...} for each
 * command.
 */
public final class LoopbackClientMain {

	private LoopbackClientMain() {
	}

	/**
	 * Run commands until {@code exit}.
	 * @param args not used
	 * @throws InterruptedException when interrupted
	 */
	public static void main(String[] args) throws InterruptedException {
		Socket socket = null;
		System.out.println("ready");
		while (true) {
			String[] command = ParentWatchdog.commands().take().split(" ");
			try {
				switch (command[0]) {
					case "open" -> {
						socket = new Socket();
						socket.connect(new InetSocketAddress(FreePorts.loopback(), Integer.parseInt(command[1])), 1000);
						socket.setSoTimeout(1000);
						System.out.println("ok open " + command[1]);
					}
					case "echo" -> {
						OutputStream out = socket.getOutputStream();
						InputStream in = socket.getInputStream();
						out.write(42);
						out.flush();
						if (in.read() != 42) {
							throw new IOException("closed");
						}
						System.out.println("ok echo");
					}
					case "exit" -> System.exit(0);
					default -> System.out.println("failed unknown command " + command[0]);
				}
			}
			catch (IOException | RuntimeException ex) {
				System.out.println("failed " + command[0] + " " + ex);
			}
		}
	}

}
