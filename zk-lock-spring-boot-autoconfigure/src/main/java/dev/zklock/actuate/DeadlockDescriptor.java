package dev.zklock.actuate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.zklock.LockDeadlock;

/**
 * One deadlock this process ended, as {@code /actuator/locks} shows it: when it was
 * found, the wait that was failed (the victim) and the cycle edge by edge.
 *
 * @param detectedAt when this process found it
 * @param victim the wait that failed with a {@code LockDeadlockException}
 * @param edges the cycle, starting with the victim's wait
 */
public record DeadlockDescriptor(Instant detectedAt, PartyDescriptor victim, List<EdgeDescriptor> edges) {

	private static final Comparator<DeadlockDescriptor> NEWEST_FIRST = Comparator
		.comparing(DeadlockDescriptor::detectedAt)
		.reversed();

	/**
	 * Describe the deadlocks of one or two engines, newest first.
	 * @param engines the deadlocks each distinct engine ended; {@code null} elements
	 * are skipped
	 * @return the descriptors
	 */
	@SafeVarargs
	static List<DeadlockDescriptor> of(@Nullable List<LockDeadlock>... engines) {
		List<DeadlockDescriptor> deadlocks = new ArrayList<>();
		for (List<LockDeadlock> engine : engines) {
			if (engine != null) {
				engine.forEach((deadlock) -> deadlocks.add(of(deadlock)));
			}
		}
		return deadlocks.stream().sorted(NEWEST_FIRST).toList();
	}

	static DeadlockDescriptor of(LockDeadlock deadlock) {
		return new DeadlockDescriptor(deadlock.detectedAt(), PartyDescriptor.of(deadlock.victim()),
				deadlock.edges().stream().map(EdgeDescriptor::of).toList());
	}

	/**
	 * A waiting thread of some instance.
	 *
	 * @param app the application name, {@code null} when not configured
	 * @param host the host name
	 * @param pid the process id
	 * @param session the ZooKeeper session of its lock manager, in hex as in the
	 * exception's message
	 * @param thread the thread name, {@code async} for an asynchronous wait
	 */
	public record PartyDescriptor(@Nullable String app, String host, long pid, String session, String thread) {

		static PartyDescriptor of(LockDeadlock.Party party) {
			return new PartyDescriptor(party.app(), party.host(), party.pid(), "0x" + Long.toHexString(party.session()),
					party.thread());
		}

	}

	/**
	 * A lock of an edge.
	 *
	 * @param name the lock name
	 * @param key the key, {@code null} for a lock without keys
	 * @param mode the mode
	 */
	public record LockRefDescriptor(String name, @Nullable String key, String mode) {

		static LockRefDescriptor of(LockDeadlock.LockRef lock) {
			return new LockRefDescriptor(lock.name(), lock.key(), lock.mode().name());
		}

	}

	/**
	 * One edge of the cycle: a waiter, and who keeps it waiting.
	 *
	 * @param waiter who waits
	 * @param waitsFor the lock it waits for
	 * @param holder who holds a node ahead of it, or waits ahead of it
	 * @param holds the lock of that node
	 * @param waitsAhead whether the holder only waits ahead of the waiter in the same
	 * queue (a reader behind a waiting writer), holding nothing there
	 */
	public record EdgeDescriptor(PartyDescriptor waiter, LockRefDescriptor waitsFor, PartyDescriptor holder,
			LockRefDescriptor holds, boolean waitsAhead) {

		static EdgeDescriptor of(LockDeadlock.Edge edge) {
			return new EdgeDescriptor(PartyDescriptor.of(edge.waiter()), LockRefDescriptor.of(edge.waitsFor()),
					PartyDescriptor.of(edge.holder()), LockRefDescriptor.of(edge.holds()), edge.waitsAhead());
		}

	}

}
