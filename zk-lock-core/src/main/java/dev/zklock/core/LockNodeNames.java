package dev.zklock.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The one parser of lock node names, used by the engine's queues
 * ({@code QueueRule}), the {@code LockRevoker} and the {@code locks} endpoint.
 * MUTEX, READ and WRITE nodes keep Curator's names ({@value #MUTEX},
 * {@value #READ}, {@value #WRITE}); a SEMAPHORE lease names the permits its owner
 * counts with ({@code lease-3-0000000012}). ZooKeeper appends a ten-digit sequence
 * to each; a protected node carries a prefix before the name, which does not
 * count. {@link #holders(List)} is the one rule for which MUTEX, READ and WRITE
 * nodes hold.
 */
public final class LockNodeNames {

	/** The name of a MUTEX node, before its sequence. */
	public static final String MUTEX = "lock-";

	/** The name of a READ node, before its sequence. */
	public static final String READ = "__READ__";

	/** The name of a WRITE node, before its sequence. */
	public static final String WRITE = "__WRIT__";

	/** The name of a SEMAPHORE lease node, before its permits and sequence. */
	public static final String LEASE = "lease-";

	// ZooKeeper appends a ten-digit sequence number to sequential nodes
	private static final int SEQUENCE_DIGITS = 10;

	private LockNodeNames() {
	}

	/**
	 * The sequence number ZooKeeper appended to a node's name.
	 * @param node a node's name
	 * @return its sequence, or -1 when the name does not end in ten digits
	 */
	public static long sequence(String node) {
		if (node.length() < SEQUENCE_DIGITS) {
			return -1;
		}
		String suffix = node.substring(node.length() - SEQUENCE_DIGITS);
		for (int i = 0; i < SEQUENCE_DIGITS; i++) {
			if (!Character.isDigit(suffix.charAt(i))) {
				return -1;
			}
		}
		return Long.parseLong(suffix);
	}

	/**
	 * The permits a lease node's owner counts with, from its name
	 * ({@code lease-<permits>-<sequence>}).
	 * @param lease a lease node's name
	 * @return its permits, or 0 when the name carries none
	 */
	public static int permits(String lease) {
		int start = lease.lastIndexOf(LEASE);
		int end = lease.lastIndexOf('-');
		if (start < 0 || end <= start + LEASE.length()) {
			return 0;
		}
		try {
			return Integer.parseInt(lease.substring(start + LEASE.length(), end));
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	/**
	 * The text after the last of the given names in a node's name, by which Curator
	 * orders a queue: its sequence, or the whole name when it carries none of them.
	 */
	static String sequenceText(String node, String... names) {
		int end = -1;
		for (String name : names) {
			int index = node.lastIndexOf(name);
			if (index >= 0) {
				end = Math.max(end, index + name.length());
			}
		}
		return (end >= 0) ? node.substring(end) : node;
	}

	/**
	 * The text after the permits in a lease node's name, by which a SEMAPHORE queue is
	 * ordered: its sequence, or the whole name when it is no lease.
	 */
	static String leaseSequenceText(String node) {
		return node.contains(LEASE) ? node.substring(node.lastIndexOf('-') + 1) : node;
	}

	/**
	 * The nodes of a MUTEX, READ or WRITE queue that hold: ordered by sequence, a
	 * MUTEX or WRITE node holds when no node is ahead of it, a READ node when no
	 * WRITE node is (the READ node of the WRITE holder shares its sequence). The one
	 * rule for who holds, used by the revoker and the {@code locks} endpoint.
	 * @param children the names of a key's children
	 * @return the names of the nodes that hold, in queue order
	 */
	public static List<String> holders(List<String> children) {
		List<String> queue = new ArrayList<>();
		@Nullable String firstWriter = null;
		for (String child : children) {
			boolean write = child.contains(WRITE);
			if (write || child.contains(READ) || child.contains(MUTEX)) {
				queue.add(child);
			}
			if (write && (firstWriter == null || queueSequence(child).compareTo(firstWriter) < 0)) {
				firstWriter = queueSequence(child);
			}
		}
		queue.sort(Comparator.comparing(LockNodeNames::queueSequence));
		List<String> holders = new ArrayList<>();
		if (queue.isEmpty()) {
			return holders;
		}
		String first = queueSequence(queue.get(0));
		for (String child : queue) {
			String sequence = queueSequence(child);
			boolean holds = child.contains(READ)
					? (firstWriter == null || firstWriter.compareTo(sequence) >= 0) : sequence.equals(first);
			if (holds) {
				holders.add(child);
			}
		}
		return holders;
	}

	private static String queueSequence(String child) {
		return (child.contains(MUTEX) ? QueueRule.MUTEX : QueueRule.WRITE).sequence(child);
	}

}
