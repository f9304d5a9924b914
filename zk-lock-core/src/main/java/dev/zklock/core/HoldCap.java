package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@code maxHold} timer of one hold: armed at the grant, re-armed by an
 * extension, and ended for good once it ran out or the hold ended, so that an
 * extension that comes too late fails rather than revives a hold being taken
 * away. Each arming has a number: a timer that fires after it was replaced finds
 * its number stale and does nothing.
 */
final class HoldCap {

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
