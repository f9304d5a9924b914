package dev.zklock.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import dev.zklock.LockInfo;
import dev.zklock.LockLossReason;
import dev.zklock.LockState;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.Nodes.LockNode;

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
 * <p>
 * Each {@link Entry} is the registry's record of one key: its state changes only
 * here, under the entry's own lock and together with the counters ({@link #held},
 * {@link #transition}, {@link #lose}, {@link #deliver}, {@link #remove},
 * {@link #linger}, {@link #unconfirmed}); what the engine times and watches for
 * the hold (its cap, minHold, revocation watch and pause epoch) the entry keeps
 * itself.
 */
public final class LockRegistry {

	private final Set<Entry> entries = ConcurrentHashMap.newKeySet();

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
		for (Entry entry : this.entries) {
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

	Entry waiting(String name, @Nullable String key, String path, LockMode mode, @Nullable Thread thread, long epoch,
			long pauseEpoch) {
		Entry entry = new Entry(name, key, path, mode, thread, epoch, pauseEpoch);
		this.counts[LockState.WAITING.ordinal()].incrementAndGet();
		this.entries.add(entry);
		return entry;
	}

	void held(Entry entry, LockNode node) {
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
	@Nullable LockState transition(Entry entry, Set<LockState> from, LockState to) {
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
	Loss lose(Entry entry, LockLossReason reason, boolean interrupt) {
		entry.lock.lock();
		try {
			if (entry.removed || !Entry.OWNED.contains(entry.state)) {
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
	boolean deliver(Entry entry) {
		entry.lock.lock();
		try {
			entry.delivered = Entry.OWNED.contains(entry.state) && !entry.removed;
			return entry.delivered;
		}
		finally {
			entry.lock.unlock();
		}
	}

	void remove(Entry entry) {
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
	boolean linger(Entry entry, MinHold minHold) {
		entry.lock.lock();
		try {
			if (entry.removed || entry.abandoned || !Entry.OWNED.contains(entry.state)) {
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
	void unconfirmed(Entry entry) {
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

	private static boolean isSettled(Entry entry) {
		return (entry.state == LockState.RELEASING && entry.unconfirmed)
				|| (entry.isLingering() && Entry.OWNED.contains(entry.state));
	}

	/**
	 * What a thread holds, as a wait-for graph counts it: its entries held or in
	 * doubt, the keys its acquisition under way took already among them. One entry
	 * stands for a re-entered key; a READ inside the thread's WRITE is an entry of its
	 * own. A key kept only for its shortest hold is left out: it ends on its own, so
	 * it blocks nobody for ever.
	 * @param thread the thread
	 * @return its entries, in no particular order
	 */
	List<Entry> heldBy(Thread thread) {
		List<Entry> result = new ArrayList<>();
		for (Entry entry : this.entries) {
			if (entry.thread == thread && Entry.OWNED.contains(entry.state) && !entry.isLingering()) {
				result.add(entry);
			}
		}
		return result;
	}

	/**
	 * The tracked entries in the given states.
	 */
	List<Entry> entries(Set<LockState> states) {
		List<Entry> result = new ArrayList<>();
		for (Entry entry : this.entries) {
			if (states.contains(entry.state)) {
				result.add(entry);
			}
		}
		return result;
	}

	private void move(Entry entry, LockState to) {
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

	/**
	 * One lock a registry tracks; identity is the entry itself. The state
	 * changes under the entry's {@link #lock}, only ever for an instant, and only
	 * through the registry, which keeps its counters with it. The thread is {@code null} for an
	 * asynchronous lock. Besides its state, an entry carries what the engine times and
	 * watches for its hold: the maxHold cap, the minHold, the revocation watch and the
	 * pause epoch last confirmed.
	 */
	static final class Entry {

		// fields without 'private' are the registry's to read and change, under the entry's lock

		static final Set<LockState> OWNED = EnumSet.of(LockState.HELD, LockState.IN_DOUBT);

		// The thread name an asynchronous lock is shown with
		private static final String ASYNC = "async";

		private final String name;

		private final @Nullable String key;

		private final String path;

		private final LockMode mode;

		final @Nullable Thread thread;

		private final String threadName;

		private final long epoch;

		// not a monitor: a virtual thread blocked on a monitor pins its carrier on Java 21 to 23
		final ReentrantLock lock = new ReentrantLock();

		// when it was granted, for display; sinceNanos times how long it has been held
		volatile long sinceMillis = System.currentTimeMillis();

		volatile long sinceNanos = System.nanoTime();

		volatile LockState state = LockState.WAITING;

		volatile @Nullable LockNode node;

		volatile @Nullable LockLossReason lossReason;

		boolean removed;

		// its release failed and awaits confirmation after a reconnection
		volatile boolean unconfirmed;

		// handed to its holder; until then it belongs to an acquisition that may still start over
		boolean delivered;

		// given up at shutdown, past its cap or revoked: its node is deleted already, so a later release has nothing to do
		volatile boolean abandoned;

		// takes the lock away when it is held longer than its cap
		private final HoldCap cap = new HoldCap();

		// the shortest hold, null for none
		volatile @Nullable MinHold minHold;

		// handed to its holder: its node is to be watched for a revocation once held a while
		private volatile boolean wantsWatch;

		// its revocation watch is set or being set; changed by the one sweep thread, reset on a failure
		private volatile boolean watching;

		// the pause epoch as of the acquisition's start or ZooKeeper's last confirmation
		private volatile long confirmedEpoch;

		private final AtomicBoolean confirming = new AtomicBoolean();

		// a holder with local hand-off: its attempt, told of the loss so that its tenure ends
		private volatile @Nullable LocalAttempt local;

		Entry(String name, @Nullable String key, String path, LockMode mode, @Nullable Thread thread, long epoch,
				long pauseEpoch) {
			this.name = name;
			this.key = key;
			this.path = path;
			this.mode = mode;
			this.thread = thread;
			this.threadName = (thread != null) ? thread.getName() : ASYNC;
			this.epoch = epoch;
			this.confirmedEpoch = pauseEpoch;
		}

		@Nullable LocalAttempt local() {
			return this.local;
		}

		void local(LocalAttempt attempt) {
			this.local = attempt;
		}

		boolean isRemoved() {
			this.lock.lock();
			try {
				return this.removed;
			}
			finally {
				this.lock.unlock();
			}
		}

		boolean isAbandoned() {
			return this.abandoned;
		}

		void abandon() {
			this.abandoned = true;
		}

		HoldCap cap() {
			return this.cap;
		}

		@Nullable MinHold minHold() {
			return this.minHold;
		}

		void minHold(MinHold minHold) {
			this.minHold = minHold;
		}

		/**
		 * Whether its work released it before its shortest hold had passed, so it is
		 * kept until then.
		 */
		boolean isLingering() {
			MinHold held = this.minHold;
			return held != null && held.isLingering();
		}

		void cancelCap() {
			this.cap.end();
		}

		void wantWatch() {
			this.wantsWatch = true;
		}

		boolean wantsWatch() {
			return this.wantsWatch && !this.watching;
		}

		void startWatching() {
			this.watching = true;
		}

		void stopWatching() {
			this.watching = false;
		}

		long sinceMillis() {
			return this.sinceMillis;
		}

		long sinceNanos() {
			return this.sinceNanos;
		}

		long confirmedEpoch() {
			return this.confirmedEpoch;
		}

		void confirmedEpoch(long pauseEpoch) {
			this.confirmedEpoch = pauseEpoch;
		}

		/**
		 * Claim the one confirmation round trip of this entry.
		 * @return whether none was under way
		 */
		boolean startConfirming() {
			return this.confirming.compareAndSet(false, true);
		}

		void stopConfirming() {
			this.confirming.set(false);
		}

		String name() {
			return this.name;
		}

		@Nullable String key() {
			return this.key;
		}

		LockMode mode() {
			return this.mode;
		}

		@Nullable Thread thread() {
			return this.thread;
		}

		String threadName() {
			return this.threadName;
		}

		long epoch() {
			return this.epoch;
		}

		LockState state() {
			return this.state;
		}

		/**
		 * The node of a held entry (not of one still waiting).
		 */
		LockNode node() {
			LockNode held = this.node;
			if (held == null) {
				throw new IllegalStateException("Lock '" + this.name + "' has no node yet: it is " + this.state);
			}
			return held;
		}

		@Nullable LockLossReason lossReason() {
			return this.lossReason;
		}

		long fencingToken() {
			LockNode held = this.node;
			return (held != null) ? held.czxid() : 0;
		}

		// Under the entry's lock, as held() sets node and state: a HELD entry always has its token
		LockInfo toInfo() {
			this.lock.lock();
			try {
				return new LockInfo(this.name, this.key, this.path, this.mode, this.threadName,
						(this.thread != null) ? this.thread.getId() : 0,
						Instant.ofEpochMilli(this.sinceMillis), this.state, fencingToken(), isLingering());
			}
			finally {
				this.lock.unlock();
			}
		}

	}

	/**
	 * One key held by one acquisition, as its holder sees it: the attempt whose node
	 * won, and the registry entry that says whether the connection still vouches for
	 * it, the pause guard adding whether this process was silent. Shared by the
	 * re-entrant handles of one thread.
	 */
	static final class Hold {

		private final Entry entry;

		private final NodeAttempt attempt;

		private final PauseGuard pauseGuard;

		Hold(Entry entry, NodeAttempt attempt, PauseGuard pauseGuard) {
			this.entry = entry;
			this.attempt = attempt;
			this.pauseGuard = pauseGuard;
		}

		Entry entry() {
			return this.entry;
		}

		NodeAttempt attempt() {
			return this.attempt;
		}

		@Nullable String key() {
			return this.entry.key();
		}

		/**
		 * The registry's state, except that a held key is in doubt after this process
		 * went silent, until ZooKeeper confirms it again.
		 */
		LockState state() {
			LockState state = this.entry.state();
			return (state == LockState.HELD && this.pauseGuard.inDoubt(this.entry)) ? LockState.IN_DOUBT : state;
		}

		/**
		 * Whether the key is in doubt because this process was silent, not because of the
		 * connection.
		 */
		boolean inDoubtAfterPause() {
			return this.entry.state() == LockState.HELD && this.pauseGuard.inDoubt(this.entry);
		}

		long fencingToken() {
			return this.entry.fencingToken();
		}

		String nodePath() {
			return this.entry.node().path();
		}

		@Nullable LockLossReason lossReason() {
			return this.entry.lossReason();
		}

		/**
		 * The mode as loss messages name it.
		 */
		String describeMode() {
			return describeMode(this.entry.mode(), this.entry.thread() != null);
		}

		/**
		 * A mode as messages name it: an asynchronous lock says so.
		 */
		static String describeMode(LockMode mode, boolean blocking) {
			return blocking ? mode.toString() : "asynchronous " + mode;
		}

	}

	/**
	 * The {@code maxHold} timer of one hold: armed at the grant, re-armed by an
	 * extension, and ended for good once it ran out or the hold ended, so that an
	 * extension that comes too late fails rather than revives a hold being taken
	 * away. Each arming has a number: a timer that fires after it was replaced finds
	 * its number stale and does nothing.
	 */
	static final class HoldCap {

		// not a monitor: a virtual thread blocked on a monitor pins its carrier on Java 21 to 23
		private final ReentrantLock lock = new ReentrantLock();

		private @Nullable ScheduledFuture<?> timer;

		private long armed;

		private boolean ended;

		/**
		 * Start a new arming: the timer of the last one is cancelled.
		 * @return its number, which its timer passes to {@link #runOut}; -1 once the
		 * cap ran out or the hold ended, for it is not armed again
		 */
		long rearm() {
			this.lock.lock();
			try {
				if (this.ended) {
					return -1;
				}
				cancelTimer();
				return ++this.armed;
			}
			finally {
				this.lock.unlock();
			}
		}

		/**
		 * Keep the timer of an arming, to be cancelled when the cap is re-armed or
		 * ends; the timer of an arming no longer current is cancelled now.
		 * @param arming the number {@link #rearm()} gave
		 * @param scheduled its timer
		 */
		void timer(long arming, ScheduledFuture<?> scheduled) {
			this.lock.lock();
			try {
				if (this.ended || arming != this.armed) {
					scheduled.cancel(false);
					return;
				}
				this.timer = scheduled;
			}
			finally {
				this.lock.unlock();
			}
		}

		/**
		 * The timer of one arming fired.
		 * @param arming its number
		 * @return whether it is the current one, which ends the cap: the hold is to be
		 * taken away
		 */
		boolean runOut(long arming) {
			this.lock.lock();
			try {
				if (this.ended || arming != this.armed) {
					return false;
				}
				this.ended = true;
				this.timer = null;
				return true;
			}
			finally {
				this.lock.unlock();
			}
		}

		/**
		 * The hold ended (released, lost, taken away): the timer is cancelled, and the
		 * cap is never armed again.
		 */
		void end() {
			this.lock.lock();
			try {
				this.ended = true;
				cancelTimer();
			}
			finally {
				this.lock.unlock();
			}
		}

		/**
		 * The timer armed last, while it may still fire; {@code null} once it ran out,
		 * was cancelled, or was never armed. For tests that check that no timer is left.
		 */
		@Nullable ScheduledFuture<?> timer() {
			this.lock.lock();
			try {
				return this.timer;
			}
			finally {
				this.lock.unlock();
			}
		}

		// under the lock
		private void cancelTimer() {
			ScheduledFuture<?> current = this.timer;
			if (current != null) {
				current.cancel(false);
				this.timer = null;
			}
		}

	}

}
