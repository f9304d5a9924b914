package dev.zklock.bench;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.zklock.testsupport.FourLetterWords;

/**
 * Reads a ZooKeeper server's counters with the {@code mntr} four-letter word, and
 * its watches with {@code wchs} and {@code wchc}. Four-letter words do not count as
 * client packets, so reading them does not disturb the counts.
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
	 * The watches one session has set on a path or below it, from {@code wchc}
	 * (which lists each session's watched paths, data and child watches alike).
	 * @param connectString {@code host:port} of one server
	 * @param sessionId the session
	 * @param path the path
	 * @return the number of watched paths
	 * @throws IOException when the server does not answer
	 */
	public static int watchesOf(String connectString, long sessionId, String path) throws IOException {
		String session = "0x" + Long.toHexString(sessionId);
		boolean ours = false;
		int count = 0;
		for (String line : command(connectString, "wchc").split("\n")) {
			if (!line.startsWith("\t") && !line.isBlank()) {
				ours = line.trim().equals(session);
			}
			else if (ours && (line.trim().equals(path) || line.trim().startsWith(path + "/"))) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Every watch the server holds, from {@code wchs} ({@code Total watches:}).
	 * @param connectString {@code host:port} of one server
	 * @return the count
	 * @throws IOException when the server does not answer
	 */
	public static long totalWatches(String connectString) throws IOException {
		String answer = command(connectString, "wchs");
		int at = answer.indexOf("Total watches:");
		if (at < 0) {
			throw new IOException("ZooKeeper at " + connectString + " gave no watch count; is 'wchs' in "
					+ "4lw.commands.whitelist?");
		}
		return Long.parseLong(answer.substring(at + "Total watches:".length()).trim());
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
