package dev.zklock.bench;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.zklock.testsupport.FourLetterWords;

/**
 * Reads a ZooKeeper server's counters with the {@code mntr} four-letter word.
 * Four-letter words do not count as client packets, so reading them does not
 * disturb the counts.
 */
public final class ZooKeeperMonitor {

	private ZooKeeperMonitor() {
	}

	/**
	 * The server's {@code mntr} counters.
	 * @param connectString {@code host:port} of one server
	 * @return counter names (such as {@code zk_packets_received}) to values
	 * @throws IOException when the server does not answer
	 */
	public static Map<String, String> mntr(String connectString) throws IOException {
		Map<String, String> values = new LinkedHashMap<>();
		for (String line : command(connectString, "mntr").split("\n")) {
			int tab = line.indexOf('\t');
			if (tab > 0) {
				values.put(line.substring(0, tab), line.substring(tab + 1).trim());
			}
		}
		if (!values.containsKey("zk_packets_received")) {
			throw new IOException("ZooKeeper at " + connectString + " gave no mntr counters; is 'mntr' in "
					+ "4lw.commands.whitelist?");
		}
		return values;
	}

	/**
	 * Number of client requests the server has received since it started.
	 * @param connectString {@code host:port} of one server
	 * @return the packet count
	 * @throws IOException when the server does not answer
	 */
	public static long packetsReceived(String connectString) throws IOException {
		return Long.parseLong(mntr(connectString).get("zk_packets_received"));
	}

	/**
	 * Send a four-letter word and read the whole answer.
	 * @param connectString {@code 127.0.0.1:port} of one server
	 * @param word the command, such as {@code ruok}
	 * @return the answer
	 * @throws IOException when the server does not answer
	 */
	public static String command(String connectString, String word) throws IOException {
		int port = Integer.parseInt(connectString.substring(connectString.lastIndexOf(':') + 1));
		return FourLetterWords.send(port, word);
	}

}
