package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How the nodes of one queue are named and ordered, when a node holds the lock, and
 * what a node that does not hold waits for. MUTEX, READ and WRITE keep Curator's
 * names and order: {@code lock-} for {@code InterProcessMutex}, {@code __READ__} and
 * {@code __WRIT__} in one queue for {@code InterProcessReadWriteLock}, so Curator's
 * recipes and zk-lock exclude each other on the same path. SEMAPHORE is zk-lock's
 * own: its lease nodes are the queue. A node sorts by the sequence after its name,
 * as {@link LockNodeNames} parses it.
 */
enum QueueRule {

	/**
	 * The lowest node holds; every other node watches its predecessor.
	 */
	MUTEX(LockNodeNames.MUTEX),

	/**
	 * A reader holds while no writer is ahead of it; otherwise it watches the first
	 * writer.
	 */
	READ(LockNodeNames.READ),

	/**
	 * A writer holds when it is first; otherwise it watches its predecessor, reader
	 * or writer.
	 */
	WRITE(LockNodeNames.WRITE),

	/**
	 * A lease node holds while fewer than {@code permits} nodes precede it. The
	 * first waiter watches the whole queue, as any holder may leave first; every
	 * later waiter watches its predecessor, which wakes it by deleting its node or,
	 * once promoted to a holder, by writing its data. Each node names the permits
	 * its owner counts with ({@code lease-3-0000000012}), so that readers of the
	 * queue can tell holders from waiters.
	 */
	SEMAPHORE(LockNodeNames.LEASE);

	private final String nodeName;

	QueueRule(String nodeName) {
		this.nodeName = nodeName;
	}

	/**
	 * The name a node of this rule is created with, before its sequence.
	 * @param permits the permits of a SEMAPHORE, 1 for the other rules
	 * @return the name
	 */
	String nodeName(int permits) {
		return (this == SEMAPHORE) ? LockNodeNames.LEASE + permits + "-" : this.nodeName;
	}

	/**
	 * The queue in order, as Curator sorts it; a SEMAPHORE queue keeps its lease
	 * nodes only, as other children of its path are no leases.
	 * @param children the children of the lock path
	 * @return a sorted copy
	 */
	List<String> sort(List<String> children) {
		List<String> sorted = new ArrayList<>(children.size());
		for (String child : children) {
			if (this != SEMAPHORE || child.contains(LockNodeNames.LEASE)) {
				sorted.add(child);
			}
		}
		sorted.sort(Comparator.comparing(this::sequence));
		return sorted;
	}

	/**
	 * Whether the node at {@code index} holds the lock, and if not, what it waits
	 * for.
	 * @param queue the sorted queue
	 * @param index our place in it
	 * @param permits the permits of a SEMAPHORE, 1 for the other rules
	 * @return what to do
	 */
	Wait next(List<String> queue, int index, int permits) {
		switch (this) {
			case READ -> {
				String firstWriter = null;
				int writers = 0;
				for (int i = 0; i < index; i++) {
					if (queue.get(i).contains(LockNodeNames.WRITE)) {
						firstWriter = (firstWriter != null) ? firstWriter : queue.get(i);
						writers++;
					}
				}
				return (firstWriter == null) ? Wait.HOLD : new Wait(firstWriter, false, writers == 1);
			}
			case SEMAPHORE -> {
				if (index < permits) {
					return Wait.HOLD;
				}
				return (index == permits) ? Wait.QUEUE : new Wait(queue.get(index - 1), false, false);
			}
			default -> {
				return (index == 0) ? Wait.HOLD : new Wait(queue.get(index - 1), false, index == 1);
			}
		}
	}

	/**
	 * The sequence of a child: what follows the last node name of this queue, or the
	 * whole name when it has none.
	 * @param child a child name
	 * @return its sort key
	 */
	String sequence(String child) {
		return switch (this) {
			case SEMAPHORE -> LockNodeNames.leaseSequenceText(child);
			case MUTEX -> LockNodeNames.sequenceText(child, this.nodeName);
			default -> LockNodeNames.sequenceText(child, LockNodeNames.READ, LockNodeNames.WRITE);
		};
	}

	/**
	 * What a node that read the queue does next.
	 * @param node the node to watch, or {@code null} to hold (or, with
	 * {@code wholeQueue}, to watch the queue)
	 * @param wholeQueue whether to watch the children of the lock path
	 * @param deletionGrants whether the deletion of {@code node} alone makes ours
	 * hold: it is the only node (for READ, the only writer) ahead of ours
	 */
	record Wait(@Nullable String node, boolean wholeQueue, boolean deletionGrants) {

		static final Wait HOLD = new Wait(null, false, false);

		static final Wait QUEUE = new Wait(null, true, false);

		boolean holds() {
			return this.node == null && !this.wholeQueue;
		}

	}

}
