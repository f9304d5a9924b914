package dev.zklock.schedules;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import dev.zklock.LockContext;
import dev.zklock.LockLossReason;
import dev.zklock.LockLostException;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.AsyncLockHandle;
import dev.zklock.schedules.ScheduleClient.Loss;

/**
 * A lock one step holds, as its holder believes: from the grant it saw until it
 * releases or sees the loss, by {@code isHeld()} or by the engine's loss
 * announcement, whichever comes first. A trusting holder, the checker's control,
 * believes it holds until it releases: it never asks whether its session still owns
 * its node.
 */
final class HeldLock {

	/** Why a holder believes it holds no more when its own {@code isHeld()} said so first. */
	static final String NOT_HELD = "isHeld() false";

	// how assertHeld() names the reason of a loss
	private static final String LOST = " was lost (";

	private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	private final int chain;

	private final ScheduleClient client;

	private final LockContext lock;

	private final String name;

	private final List<String> keys;

	private final LockMode mode;

	private final int permits;

	private final boolean trusting;

	private final long start = System.nanoTime();

	private final boolean heldAtGrant;

	private final List<Long> tokens = new ArrayList<>();

	// whose losses are this hold's: the holders of one tenure of local hand-off share its token
	private final long threadId;

	private long lostAt = -1;

	private String reason = "";

	HeldLock(int chain, ScheduleClient client, LockContext lock, List<String> keys, int permits, boolean trusting) {
		this.chain = chain;
		this.client = client;
		this.lock = lock;
		this.name = lock.name();
		this.keys = keys;
		this.mode = lock.mode();
		this.permits = permits;
		this.trusting = trusting;
		this.threadId = (lock instanceof AsyncLockHandle) ? 0 : Thread.currentThread().getId();
		this.heldAtGrant = lock.isHeld();
		for (String key : keys) {
			this.tokens.add(lock.fencingToken(key));
		}
		for (int i = 0; i < keys.size(); i++) {
			client.history().held(new History.Held(new History.Hold(chain, client.index, this.name, keys.get(i),
					this.mode, permits, this.tokens.get(i), this.start, -1, false, null, this.heldAtGrant)));
		}
	}

	/**
	 * Write every key to the fenced store, if this holder writes at all (exclusive
	 * modes) and still believes it holds.
	 * @param store the store
	 */
	void write(FencedStore store) {
		if ((this.mode == LockMode.MUTEX || this.mode == LockMode.WRITE) && believes()) {
			for (int i = 0; i < this.keys.size(); i++) {
				store.write(this.chain, this.name + "/" + this.keys.get(i), this.tokens.get(i));
			}
		}
	}

	/**
	 * Hold until a moment, or until the holder sees the lock lost.
	 * @param until {@link System#nanoTime()} to hold until
	 * @return whether the holder still believes it holds
	 */
	boolean holdUntil(long until) {
		return holdUntil(until, null);
	}

	/**
	 * Hold until a moment, or until the holder sees the lock lost; for a nested lock,
	 * with the caller's work under its outer lock too: the outer lock's loss is seen
	 * when it happens, as a careful caller checks both, and not only once the nested
	 * lock is released, which takes as long as ZooKeeper takes to answer.
	 * @param until {@link System#nanoTime()} to hold until
	 * @param outer the lock this one was taken inside, or {@code null}
	 * @return whether the holder still believes it holds this lock
	 */
	boolean holdUntil(long until, @Nullable HeldLock outer) {
		while (true) {
			boolean held = believes();
			if (outer != null) {
				outer.believes();
			}
			if (!held) {
				return false;
			}
			long left = until - System.nanoTime();
			if (left <= 0) {
				return true;
			}
			// the holder's own work, checking its lock as a careful caller does
			LockSupport.parkNanos(Math.min(left, POLL_NANOS));
		}
	}

	/**
	 * Run the release of a lock nested in this one while watching this one, as
	 * {@link #holdUntil(long, HeldLock)} watches it while the nested lock is held. The
	 * release blocks for as long as ZooKeeper takes to answer, a second or more while
	 * the connection is down; a loss of this lock in that time is seen when it
	 * happens, not once the release returns. A nested lock seen lost first would
	 * otherwise leave this one believed held through its release.
	 * @param release the nested lock's release, run on the calling thread (a lock is
	 * released by the thread that holds it)
	 */
	void watchDuring(Runnable release) {
		if (this.trusting) {
			release.run();
			return;
		}
		AtomicBoolean done = new AtomicBoolean();
		Thread watcher = new Thread(() -> {
			while (!done.get() && believes()) {
				LockSupport.parkNanos(POLL_NANOS);
			}
		}, "watch " + this.name + " " + this.keys);
		watcher.setDaemon(true);
		watcher.start();
		try {
			release.run();
		}
		finally {
			done.set(true);
			// joined, so that what the watcher saw is this thread's to read from here on
			joinUninterruptibly(watcher);
		}
	}

	private static void joinUninterruptibly(Thread thread) {
		boolean interrupted = false;
		while (thread.isAlive()) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	boolean believes() {
		if (this.lostAt >= 0) {
			return false;
		}
		if (this.trusting) {
			return true;
		}
		long now = System.nanoTime();
		Loss announced = announcedLoss();
		if (announced != null) {
			lost(Math.min(now, announced.at()), announced.reason());
			return false;
		}
		if (!this.lock.isHeld()) {
			lost(now, whyNotHeld());
			return false;
		}
		return true;
	}

	// The holder believes it holds no more from here on, and says so at once, not only when its step records the hold:
	// that may come seconds later (a careless caller paces to its nested lock and holds that first), and a client
	// process killed meanwhile would leave a hold that ends at the kill, as if its holder had never seen the loss
	private void lost(long at, String why) {
		this.lostAt = at;
		this.reason = why;
		for (int i = 0; i < this.keys.size(); i++) {
			this.client.history()
				.held(new History.Held(new History.Hold(this.chain, this.client.index, this.name, this.keys.get(i),
						this.mode, this.permits, this.tokens.get(i), this.start, at, true, why, this.heldAtGrant)));
		}
	}

	// What assertHeld() says of a lock not held, before the engine's announcement may come: a take-away or a loss by
	// its reason (a holder's maxHold may run out before a caller woken late first looks), else in doubt
	private String whyNotHeld() {
		try {
			this.lock.assertHeld();
			return NOT_HELD;
		}
		catch (LockLostException ex) {
			String message = String.valueOf(ex.getMessage());
			int lost = message.indexOf(LOST);
			if (message.contains(" was taken away: it was held longer than its maxHold")) {
				return LockLossReason.MAX_HOLD_EXCEEDED.name();
			}
			if (message.contains(" was revoked: ")) {
				return LockLossReason.REVOKED.name();
			}
			if (lost >= 0 && message.indexOf(')', lost) > 0) {
				return message.substring(lost + LOST.length(), message.indexOf(')', lost));
			}
			return NOT_HELD;
		}
	}

	private Loss announcedLoss() {
		for (int i = 0; i < this.keys.size(); i++) {
			Loss loss = this.client.lossOf(this.name, this.keys.get(i), this.tokens.get(i), this.threadId);
			if (loss != null) {
				return loss;
			}
		}
		return null;
	}

	/**
	 * Record this hold of every key, ending now (the holder is about to release) or
	 * when it saw the loss.
	 * @param history where to record
	 */
	void record(History history) {
		boolean lost = !believes();
		long end = lost ? this.lostAt : System.nanoTime();
		for (int i = 0; i < this.keys.size(); i++) {
			history.hold(new History.Hold(this.chain, this.client.index, this.name, this.keys.get(i), this.mode,
					this.permits, this.tokens.get(i), this.start, end, lost, lost ? this.reason : null,
					this.heldAtGrant));
		}
	}

}
