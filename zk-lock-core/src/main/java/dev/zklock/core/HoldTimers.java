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
 * {@code maxHold} cap that takes a hold away once it has lasted too long (its
 * {@link LockRegistry.HoldCap}, re-armed when the holder extends the hold), the
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
		Duration requested = request.maxHold();
		Duration cap = (requested != null) ? requested : this.defaultMaxHold;
		if (cap != null) {
			long capNanos = LockEngine.cappedNanos(cap);
			for (Hold hold : holds) {
				cap(hold.entry(), capNanos);
			}
		}
		holdAtLeast(holds, request.minHold());
		this.revocationWatch.arm(holds);
	}

	/**
	 * Extend holds that are held or in doubt: their cap runs from now, on the same
	 * timer as a cap set at the grant (a hold taken without one gets one), and, when
	 * asked, they are kept at least {@code minHold} from now.
	 * @param name the lock name, for the error
	 * @param holds the holds
	 * @param maxHold the cap from now, positive
	 * @param minHold the shortest hold from now, or {@code null} to leave it as it is
	 * @return the first hold whose cap had run out or ended meanwhile, so that it is
	 * being taken away or released; {@code null} when every cap was re-armed
	 * @throws IllegalArgumentException when the cap would end before a shortest hold
	 * already promised
	 */
	@Nullable Hold extend(String name, List<Hold> holds, Duration maxHold, @Nullable Duration minHold) {
		long now = System.nanoTime();
		long capNanos = LockEngine.cappedNanos(maxHold);
		for (Hold hold : holds) {
			MinHold kept = hold.entry().minHold();
			long keptNanos = (kept != null) ? kept.remainingNanos() : 0;
			if (keptNanos > capNanos) {
				throw new IllegalArgumentException("Lock '" + name + "' cannot have its maxHold set to " + maxHold
						+ " from now: its minHold has " + TimeUnit.NANOSECONDS.toMillis(keptNanos) + " ms to run, so "
						+ "the lock would be taken away before it may be released; extend it by at least that");
			}
		}
		for (Hold hold : holds) {
			if (!cap(hold.entry(), capNanos)) {
				return hold;
			}
		}
		if (minHold != null && !minHold.isZero()) {
			long until = now + LockEngine.cappedNanos(minHold);
			for (Hold hold : holds) {
				MinHold kept = hold.entry().minHold();
				if (kept != null) {
					kept.atLeastUntil(until);
				}
				else {
					hold.entry().minHold(new MinHold(now, LockEngine.cappedNanos(minHold)));
				}
			}
		}
		return null;
	}

	// When a hold is still held after the cap, it is taken away: the one path of grants and extensions alike
	private boolean cap(LockRegistry.Entry entry, long capNanos) {
		long arming = entry.cap().rearm();
		if (arming < 0) {
			return false;
		}
		if (capNanos == LockEngine.MAX_WAIT_NANOS) {
			// too long to ever run out: no timer, and the one before is cancelled
			return true;
		}
		ScheduledFuture<?> scheduled = this.timer.schedule(() -> runOut(entry, arming), capNanos,
				TimeUnit.NANOSECONDS);
		if (scheduled != null) {
			entry.cap().timer(arming, scheduled);
		}
		return true;
	}

	// A cap that an extension replaced meanwhile does nothing
	private void runOut(LockRegistry.Entry entry, long arming) {
		if (entry.cap().runOut(arming)) {
			this.releases.takeAway(entry, LockLossReason.MAX_HOLD_EXCEEDED);
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
