package dev.zklock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import dev.zklock.LockLossReason;
import dev.zklock.annotation.LockMode;

/**
 * The locks a {@link CuratorLockManager} currently holds, awaits, or still tracks
 * after a connection problem, synchronous and asynchronous alike: one entry per
 * key of each acquisition (for a thread, per path and mode; re-entrant
 * acquisitions do not add entries). Asynchronous entries belong to no thread.
 * Read-only for callers; the counters are cheap enough for gauges.
 * <p>
 * An entry goes from {@link LockState#WAITING} to {@link LockState#HELD}; from
 * there to {@link LockState#IN_DOUBT} and back while the connection is suspended,
 * or to {@link LockState#LOST}; and to {@link LockState#RELEASING} when its thread
 * releases it. It leaves the registry once the release is confirmed or the
 * session is known to be gone.
 */
public final class LockRegistry {

	private final Set<RegistryEntry> entries = ConcurrentHashMap.newKeySet();

	// one counter per state, by ordinal
	private final AtomicInteger[] counts = new AtomicInteger[LockState.values().length];

	// completed once the registry is empty, for a shutdown that waits for it
	private volatile @Nullable CompletableFuture<Void> emptied;

	LockRegistry() {
		for (LockState state : LockState.values()) {
			this.counts[state.ordinal()] = new AtomicInteger();
		}
	}

	/**
	 * Snapshot of the locks tracked right now.
	 * @return the locks, in no particular order
	 */
	public List<LockInfo> snapshot() {
		List<LockInfo> result = new ArrayList<>(this.entries.size());
		for (RegistryEntry entry : this.entries) {
			result.add(entry.toInfo());
		}
		return result;
	}

	/**
	 * The distinct registries among those given: a manager and its asynchronous
	 * view share one, a manager of its own brings another.
	 * @param registries registries, possibly {@code null} or the same one twice
	 * @return each registry once, in the order given
	 */
	public static List<LockRegistry> distinct(@Nullable LockRegistry... registries) {
		List<LockRegistry> result = new ArrayList<>(registries.length);
		for (LockRegistry registry : registries) {
			if (registry != null && !result.contains(registry)) {
				result.add(registry);
			}
		}
		return result;
	}

	/**
	 * Number of locks held for sure.
	 * @return the count
	 */
	public int heldCount() {
		return count(LockState.HELD);
	}

	/**
	 * Number of locks awaited.
	 * @return the count
	 */
	public int waitingCount() {
		return count(LockState.WAITING);
	}

	/**
	 * Number of locks in the given state.
	 * @param state the state
	 * @return the count
	 */
	public int count(LockState state) {
		return this.counts[state.ordinal()].get();
	}

	RegistryEntry waiting(String name, @Nullable String key, String path, LockMode mode, @Nullable Thread thread, long epoch,
			long pauseEpoch) {
		RegistryEntry entry = new RegistryEntry(name, key, path, mode, thread, epoch, pauseEpoch);
		this.counts[LockState.WAITING.ordinal()].incrementAndGet();
		this.entries.add(entry);
		return entry;
	}

	void held(RegistryEntry entry, LockNode node) {
		entry.lock.lock();
		try {
			entry.node = node;
			entry.sinceMillis = System.currentTimeMillis();
			entry.sinceNanos = System.nanoTime();
			move(entry, LockState.HELD);
		}
		finally {
			entry.lock.unlock();
		}
	}

	/**
	 * Move the entry to a new state if it is tracked and in one of the expected
	 * states.
	 * @return the state it left, or {@code null} when nothing changed
	 */
	@Nullable LockState transition(RegistryEntry entry, Set<LockState> from, LockState to) {
		entry.lock.lock();
		try {
			if (entry.removed || !from.contains(entry.state)) {
				return null;
			}
			LockState previous = entry.state;
			move(entry, to);
			return previous;
		}
		finally {
			entry.lock.unlock();
		}
	}

	/**
	 * Mark a held or in-doubt entry lost, and interrupt its thread if asked and the
	 * entry was handed to its holder, while the thread cannot be releasing it.
	 * @return what was lost
	 */
	Loss lose(RegistryEntry entry, LockLossReason reason, boolean interrupt) {
		entry.lock.lock();
		try {
			if (entry.removed || !RegistryEntry.OWNED.contains(entry.state)) {
				return Loss.NONE;
			}
			MinHold minHold = entry.minHold;
			if (minHold != null && minHold.isLingering()) {
				// its work is done: the hold just ends with its node, nobody to tell
				remove(entry);
				return Loss.NONE;
			}
			entry.lossReason = reason;
			move(entry, LockState.LOST);
			if (!entry.delivered) {
				return Loss.OF_PENDING;
			}
			if (interrupt && entry.thread != null) {
				entry.thread.interrupt();
			}
			return Loss.OF_HOLDER;
		}
		finally {
			entry.lock.unlock();
		}
	}

	/**
	 * Hand a held key to its holder, unless it was lost meanwhile.
	 * @return whether it is still held or in doubt
	 */
	boolean deliver(RegistryEntry entry) {
		entry.lock.lock();
		try {
			entry.delivered = RegistryEntry.OWNED.contains(entry.state) && !entry.removed;
			return entry.delivered;
		}
		finally {
			entry.lock.unlock();
		}
	}

	void remove(RegistryEntry entry) {
		entry.lock.lock();
		try {
			if (!entry.removed && this.entries.remove(entry)) {
				entry.removed = true;
				this.counts[entry.state.ordinal()].decrementAndGet();
			}
		}
		finally {
			entry.lock.unlock();
		}
		MinHold minHold = entry.minHold;
		if (minHold != null) {
			minHold.end();
		}
		checkSettled();
	}

	/**
	 * The work released a key before its shortest hold had passed: it stays held,
	 * and no longer holds up a shutdown, which has no work of it to wait for.
	 * @return whether it lingers: held or in doubt, not taken away meanwhile
	 */
	boolean linger(RegistryEntry entry, MinHold minHold) {
		entry.lock.lock();
		try {
			if (entry.removed || entry.abandoned || !RegistryEntry.OWNED.contains(entry.state)) {
				return false;
			}
			minHold.linger();
		}
		finally {
			entry.lock.unlock();
		}
		checkSettled();
		return true;
	}

	/**
	 * Completes once nothing is held or awaited any more: every wait has ended and
	 * every hold was released by its work and its release answered. A release that
	 * failed and waits for the connection to be confirmed ({@code unconfirmed}) does
	 * not count: the work is done, and the node goes with the session at the latest.
	 * Nor does a hold kept for its shortest hold after its work finished.
	 */
	CompletableFuture<Void> whenSettled() {
		CompletableFuture<Void> waiting = new CompletableFuture<>();
		this.emptied = waiting;
		// an entry that settled before the field was set completes it here
		checkSettled();
		return waiting;
	}

	/**
	 * A release failed: the entry stays {@link LockState#RELEASING} until a
	 * reconnection confirms it, and no longer holds up a shutdown.
	 */
	void unconfirmed(RegistryEntry entry) {
		entry.unconfirmed = true;
		checkSettled();
	}

	private void checkSettled() {
		CompletableFuture<Void> waiting = this.emptied;
		if (waiting != null && !waiting.isDone()
				&& this.entries.stream().allMatch(LockRegistry::isSettled)) {
			waiting.complete(null);
		}
	}

	private static boolean isSettled(RegistryEntry entry) {
		return (entry.state == LockState.RELEASING && entry.unconfirmed)
				|| (entry.isLingering() && RegistryEntry.OWNED.contains(entry.state));
	}

	/**
	 * The tracked entries in the given states.
	 */
	List<RegistryEntry> entries(Set<LockState> states) {
		List<RegistryEntry> result = new ArrayList<>();
		for (RegistryEntry entry : this.entries) {
			if (states.contains(entry.state)) {
				result.add(entry);
			}
		}
		return result;
	}

	private void move(RegistryEntry entry, LockState to) {
		this.counts[entry.state.ordinal()].decrementAndGet();
		entry.state = to;
		this.counts[to.ordinal()].incrementAndGet();
	}

	/**
	 * What {@link #lose} found.
	 */
	enum Loss {

		/** The entry was not held: nothing changed. */
		NONE,

		/** A lock its holder had: to be announced. */
		OF_HOLDER,

		/** A key of an acquisition still under way, which starts over. */
		OF_PENDING

	}

}
