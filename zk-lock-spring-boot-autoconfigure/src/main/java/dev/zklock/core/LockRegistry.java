package dev.zklock.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.zklock.annotation.LockMode;

/**
 * The locks a {@link CuratorLockManager} currently holds and awaits, one entry per
 * thread, path and mode. Re-entrant acquisitions do not add entries. Read-only for
 * callers; the counters are cheap enough for gauges.
 */
public final class LockRegistry {

	private final Set<Entry> entries = ConcurrentHashMap.newKeySet();

	private final AtomicInteger held = new AtomicInteger();

	private final AtomicInteger waiting = new AtomicInteger();

	LockRegistry() {
	}

	/**
	 * Snapshot of the locks held and awaited right now.
	 * @return the locks, in no particular order
	 */
	public List<LockInfo> snapshot() {
		List<LockInfo> result = new ArrayList<>(this.entries.size());
		for (Entry entry : this.entries) {
			result.add(entry.toInfo());
		}
		return result;
	}

	/**
	 * Number of locks held.
	 * @return the count
	 */
	public int heldCount() {
		return this.held.get();
	}

	/**
	 * Number of locks awaited.
	 * @return the count
	 */
	public int waitingCount() {
		return this.waiting.get();
	}

	Entry waiting(String name, String key, String path, LockMode mode) {
		Entry entry = new Entry(name, key, path, mode, Thread.currentThread());
		this.waiting.incrementAndGet();
		this.entries.add(entry);
		return entry;
	}

	void held(Entry entry) {
		entry.sinceMillis = System.currentTimeMillis();
		entry.state = LockState.HELD;
		this.waiting.decrementAndGet();
		this.held.incrementAndGet();
	}

	void remove(Entry entry) {
		if (this.entries.remove(entry)) {
			((entry.state == LockState.HELD) ? this.held : this.waiting).decrementAndGet();
		}
	}

	/**
	 * One tracked lock; identity is the entry itself.
	 */
	static final class Entry {

		private final String name;

		private final String key;

		private final String path;

		private final LockMode mode;

		private final String threadName;

		private final long threadId;

		private volatile long sinceMillis = System.currentTimeMillis();

		private volatile LockState state = LockState.WAITING;

		private Entry(String name, String key, String path, LockMode mode, Thread thread) {
			this.name = name;
			this.key = key;
			this.path = path;
			this.mode = mode;
			this.threadName = thread.getName();
			this.threadId = thread.getId();
		}

		LockInfo toInfo() {
			return new LockInfo(this.name, this.key, this.path, this.mode, this.threadName, this.threadId,
					Instant.ofEpochMilli(this.sinceMillis), this.state);
		}

	}

}
