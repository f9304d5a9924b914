package dev.zklock.actuate;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The queues of one lock name, as read from ZooKeeper.
 *
 * @param name the lock name
 * @param path the ZooKeeper path of the name
 * @param keys the keys that have participants, in key order
 * @param truncated whether keys or participants were left out because there were
 * too many
 */
public record LockQueuesDescriptor(String name, String path, List<KeyQueue> keys, boolean truncated) {

	/**
	 * The participants of one key, in queue order.
	 *
	 * @param key the key, decoded from its path segment where possible; {@code null}
	 * for a lock without keys
	 * @param path the ZooKeeper path of the key
	 * @param participants holders first, then waiters, each in order of arrival
	 */
	public record KeyQueue(@Nullable String key, String path, List<Participant> participants) {

	}

	/**
	 * One process's node in a lock's queue.
	 *
	 * @param node the node name
	 * @param sequence the node's sequence number
	 * @param mode {@code MUTEX}, {@code READ}, {@code WRITE} or {@code SEMAPHORE}
	 * @param state {@code HELD}, {@code WAITING}, or {@code ACQUIRING} for the
	 * semaphore waiter that is next in line: it waits for a permit with a lease of
	 * its own already created
	 * @param owner the node's data as text: who created it
	 * @param sessionId the ZooKeeper session that owns the node, in hex
	 * @param created when the node was created
	 * @param fencingToken the fencing token of a holder: its node's creation zxid;
	 * {@code null} for waiters
	 */
	public record Participant(String node, long sequence, String mode, String state, @Nullable String owner,
			String sessionId, Instant created, @Nullable Long fencingToken) {

	}

}
