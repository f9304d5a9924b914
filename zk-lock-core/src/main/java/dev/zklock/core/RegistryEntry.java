package dev.zklock.core;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import dev.zklock.LockLossReason;
import dev.zklock.annotation.LockMode;

/**
 * One lock a {@link LockRegistry} tracks; identity is the entry itself. The state
 * changes under the entry's {@link #lock}, only ever for an instant, and only
 * through the registry, which keeps its counters with it. The thread is {@code null} for an
 * asynchronous lock. Besides its state, an entry carries what the engine times and
 * watches for its hold: the maxHold cap, the minHold, the revocation watch and the
 * pause epoch last confirmed.
 */
final class RegistryEntry {

	// fields without 'private' are LockRegistry's to read and change, under the entry's lock

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
	private volatile @Nullable ScheduledFuture<?> capTimer;

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

	RegistryEntry(String name, @Nullable String key, String path, LockMode mode, @Nullable Thread thread, long epoch,
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

	void capTimer(ScheduledFuture<?> timer) {
		this.capTimer = timer;
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
		ScheduledFuture<?> timer = this.capTimer;
		if (timer != null) {
			timer.cancel(false);
		}
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
