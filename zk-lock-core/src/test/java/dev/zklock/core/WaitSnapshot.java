package dev.zklock.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.curator.utils.ZKPaths;

import dev.zklock.LockDeadlock.LockRef;
import dev.zklock.LockDeadlock.Party;
import dev.zklock.annotation.LockMode;

/**
 * A snapshot of published waits and the queues they wait in, built by hand for the
 * wait-for graph's tests: queues under {@code /locks/<name>/<key>}, each thread on
 * a host of its own, records created in the order they are added.
 */
final class WaitSnapshot {

	static final String BASE = "/locks";

	private final Map<String, List<String>> queues = new LinkedHashMap<>();

	private final List<WaitForGraph.Wait> waits = new ArrayList<>();

	/**
	 * Add a node to the queue of a lock.
	 * @param lock {@code name/key}
	 * @param name the node's name, such as {@code lock-0000000001}
	 * @return its full path
	 */
	String node(String lock, String name) {
		String queue = BASE + "/" + lock;
		this.queues.computeIfAbsent(queue, (path) -> new ArrayList<>()).add(name);
		return queue + "/" + name;
	}

	/**
	 * Publish the wait of a thread.
	 * @param thread the thread, which names its host as well
	 * @param waitingNode the full path of the node it waits with, whose name gives
	 * the mode
	 * @param permits the permits it counts with
	 * @param local whether it waits behind a tenure
	 * @param held the full paths of the nodes it holds
	 * @return the published wait, its zxid above every earlier one
	 */
	WaitForGraph.Wait wait(String thread, String waitingNode, int permits, boolean local, String... held) {
		List<WaitRecord.Held> holds = new ArrayList<>();
		for (String path : held) {
			holds.add(new WaitRecord.Held(lockOf(path), path));
		}
		ZKPaths.PathAndNode node = ZKPaths.getPathAndNode(waitingNode);
		WaitRecord record = new WaitRecord(party(thread), 1, lockOf(waitingNode), permits, node.getPath(),
				node.getNode(), local, Instant.EPOCH, holds, false);
		WaitForGraph.Wait wait = new WaitForGraph.Wait(BASE + "/" + LockPaths.WAITS + "/w-" + thread,
				0x100 + this.waits.size(), record);
		this.waits.add(wait);
		return wait;
	}

	WaitForGraph.Wait wait(String thread, String waitingNode, String... held) {
		return wait(thread, waitingNode, 1, false, held);
	}

	/**
	 * Publish the wait of a thread that holds the first MUTEX node of one lock and
	 * waits with the second node of another.
	 */
	WaitForGraph.Wait nested(String thread, String held, String waitsFor) {
		return wait(thread, node(waitsFor, "lock-0000000002"), node(held, "lock-0000000001"));
	}

	/**
	 * The graph of the snapshot.
	 */
	WaitForGraph graph() {
		return WaitForGraph.of(this.waits, this.queues);
	}

	/**
	 * The graph of the same snapshot read in the opposite order: the records and
	 * each queue's children reversed.
	 */
	WaitForGraph graphReadBackwards() {
		Map<String, List<String>> reversed = new LinkedHashMap<>();
		this.queues.forEach((queue, children) -> reversed.put(queue, backwards(children)));
		return WaitForGraph.of(backwards(this.waits), reversed);
	}

	private static <T> List<T> backwards(List<T> list) {
		List<T> copy = new ArrayList<>(list);
		Collections.reverse(copy);
		return copy;
	}

	static Party party(String thread) {
		return new Party("orders", "host-" + thread, 4711, 0x1000 + thread.hashCode(), thread);
	}

	// name, key and mode from a node's path under the base path
	static LockRef lockOf(String nodePath) {
		String[] segments = nodePath.substring(BASE.length() + 1).split("/");
		String name = segments[2];
		LockMode mode = name.contains(LockNodeNames.READ) ? LockMode.READ
				: name.contains(LockNodeNames.WRITE) ? LockMode.WRITE
						: name.contains(LockNodeNames.LEASE) ? LockMode.SEMAPHORE : LockMode.MUTEX;
		return new LockRef(segments[0], segments[1], mode);
	}

}
