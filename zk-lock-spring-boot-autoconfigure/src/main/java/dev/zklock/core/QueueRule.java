package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How the nodes of one queue are named and ordered, and when a node holds the
 * lock. The names and order are Curator's: {@code lock-} for
 * {@code InterProcessMutex}, {@code __READ__} and {@code __WRIT__} in one queue for
 * {@code InterProcessReadWriteLock}, so Curator's recipes and zk-lock exclude each
 * other on the same path. A node sorts by the sequence after its name; protected
 * nodes carry a prefix before the name, which does not count.
 */
enum QueueRule {

	/**
	 * The lowest node holds; every other node watches its predecessor.
	 */
	MUTEX("lock-"),

	/**
	 * A reader holds while no writer is ahead of it; otherwise it watches the first
	 * writer.
	 */
	READ(QueueRule.READ_NAME),

	/**
	 * A writer holds when it is first; otherwise it watches its predecessor, reader
	 * or writer.
	 */
	WRITE(QueueRule.WRITE_NAME);

	static final String READ_NAME = "__READ__";

	static final String WRITE_NAME = "__WRIT__";

	private final String nodeName;

	QueueRule(String nodeName) {
		this.nodeName = nodeName;
	}

	/**
	 * The name a node of this rule is created with, before its sequence.
	 */
	String nodeName() {
		return this.nodeName;
	}

	/**
	 * The queue in order, as Curator sorts it.
	 * @param children the children of the lock path
	 * @return a sorted copy
	 */
	List<String> sort(List<String> children) {
		List<String> sorted = new ArrayList<>(children);
		sorted.sort(Comparator.comparing(this::sequence));
		return sorted;
	}

	/**
	 * Whether the node at {@code index} holds the lock, and if not, which node it
	 * waits for.
	 * @param queue the sorted queue
	 * @param index our place in it
	 * @return {@code null} when our node holds, else the name of the node to watch
	 */
	@Nullable String blocker(List<String> queue, int index) {
		if (this != READ) {
			return (index == 0) ? null : queue.get(index - 1);
		}
		for (int i = 0; i < index; i++) {
			if (queue.get(i).contains(WRITE_NAME)) {
				return queue.get(i);
			}
		}
		return null;
	}

	/**
	 * The sequence of a child: what follows the last node name of this queue, or the
	 * whole name when it has none.
	 * @param child a child name
	 * @return its sort key
	 */
	String sequence(String child) {
		int index = (this == MUTEX) ? child.lastIndexOf(this.nodeName)
				: Math.max(child.lastIndexOf(READ_NAME), child.lastIndexOf(WRITE_NAME));
		return (index >= 0) ? child.substring(index + this.nodeName.length()) : child;
	}

}
