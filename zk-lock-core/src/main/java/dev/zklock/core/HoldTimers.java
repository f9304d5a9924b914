package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.zklock.LockLossReason;
import dev.zklock.LockRequest;
import dev.zklock.core.LockRegistry.Hold;

/**
 * What the engine times and watches for holds just handed to their holder: the
 * {@code maxHold} cap that takes a hold away once it has lasted too long, the
 * {@code minHold} it must last (which {@link HoldRelease} keeps when the work
 * ends sooner), and the {@link RevocationWatch} on the held node.
 */
final class HoldTimers {

	private final EngineTimer timer;

	private final HoldRelease releases;

	private final RevocationWatch revocationWatch;

	// the cap of holds whose request has none; null for none
	private volatile @Nullable Duration defaultMaxHold;

	HoldTimers(EngineTimer timer, HoldRelease releases, RevocationWatch revocationWatch) {
		this.timer = timer;
		this.releases = releases;
		this.revocationWatch = revocationWatch;
	}

	void setDefaultMaxHold(@Nullable Duration maxHold) {
		if (maxHold != null && (maxHold.isNegative() || maxHold.isZero())) {
			throw new IllegalArgumentException("zk-lock.max-hold must be positive, got " + maxHold);
		}
		this.defaultMaxHold = maxHold;
	}

	/**
	 * Refuse a request whose shortest hold is longer than the default cap that
	 * applies to it.
	 */
	void checkHoldBounds(LockRequest request) {
		Duration minHold = request.minHold();
		if (minHold == null) {
			return;
		}
		Duration cap = this.defaultMaxHold;
		if (request.maxHold() == null && cap != null && minHold.compareTo(cap) > 0) {
			throw new IllegalArgumentException("Lock '" + request.name() + "' minHold " + minHold
					+ " is longer than zk-lock.max-hold " + cap + ", which caps it: the lock would be taken away "
					+ "before it may be released; lower minHold, or give the request a maxHold of its own");
		}
	}

	/**
	 * Start the timers and the watch of holds just handed to their holder: the
	 * request's cap (or the default), its shortest hold, and the revocation watch.
	 * @param holds the holds
	 * @param request the request they were acquired for
	 */
	void start(List<Hold> holds, LockRequest request) {
		capHolds(holds, request.maxHold());
		holdAtLeast(holds, request.minHold());
		this.revocationWatch.arm(holds);
	}

	// When a hold is still held after maxHold (or the default), it is taken away
	private void capHolds(List<Hold> holds, @Nullable Duration maxHold) {
		Duration cap = (maxHold != null) ? maxHold : this.defaultMaxHold;
		if (cap == null || LockEngine.cappedNanos(cap) == LockEngine.MAX_WAIT_NANOS) {
			// none, or too long to ever run out
			return;
		}
		for (Hold hold : holds) {
			LockRegistry.Entry entry = hold.entry();
			ScheduledFuture<?> timer = this.timer.schedule(
					() -> this.releases.takeAway(entry, LockLossReason.MAX_HOLD_EXCEEDED), cap.toNanos(),
					TimeUnit.NANOSECONDS);
			if (timer != null) {
				entry.capTimer(timer);
			}
		}
	}

	// Keep holds at least minHold from now: a release that comes sooner leaves the node until then
	private void holdAtLeast(List<Hold> holds, @Nullable Duration minHold) {
		if (minHold == null || minHold.isZero()) {
			return;
		}
		long granted = System.nanoTime();
		long nanos = LockEngine.cappedNanos(minHold);
		for (Hold hold : holds) {
			hold.entry().minHold(new MinHold(granted, nanos));
		}
	}

}
