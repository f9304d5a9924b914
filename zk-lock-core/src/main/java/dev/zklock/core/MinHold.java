package dev.zklock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The shortest hold of one held key ({@link dev.zklock.LockRequest#minHold()}):
 * when it ends on this process's monotonic clock, whether its work has finished
 * and left the key lingering until then, and when the hold really ended. Only
 * this process's own clock measures it, so no clock of another machine matters.
 * An extension of the hold may move its end later, never earlier.
 */
final class MinHold {

	private final AtomicLong untilNanos;

	// completed once the key is no longer held: its node deleted, or its session gone
	private final CompletableFuture<Void> ended = new CompletableFuture<>();

	private volatile boolean lingering;

	MinHold(long grantedNanos, long minHoldNanos) {
		this.untilNanos = new AtomicLong(grantedNanos + minHoldNanos);
	}

	/**
	 * Keep the hold at least until the given time, unless it lasts longer already.
	 * @param untilNanos a time on {@link System#nanoTime()}'s clock
	 */
	void atLeastUntil(long untilNanos) {
		// compared by difference: nanoTime may wrap
		this.untilNanos.accumulateAndGet(untilNanos, (current, asked) -> (asked - current > 0) ? asked : current);
	}

	/**
	 * Time left until the shortest hold has passed, 0 or less once it has.
	 */
	long remainingNanos() {
		return this.untilNanos.get() - System.nanoTime();
	}

	/**
	 * Whether the work has released the key, which stays held until the shortest
	 * hold has passed.
	 */
	boolean isLingering() {
		return this.lingering;
	}

	void linger() {
		this.lingering = true;
	}

	CompletableFuture<Void> ended() {
		return this.ended;
	}

	void end() {
		this.ended.complete(null);
	}

}
