package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockLossReason;
import dev.zklock.LockRequest;

/**
 * What the engine times and watches for holds just handed to their holder: the
 * {@code maxHold} cap that takes a hold away once it has lasted too long, the
 * {@code minHold} that keeps a released key's node until its shortest hold has
 * passed (lingering, on this process's monotonic clock), and the
 * {@link RevocationWatch} on the held node. Lingering timers still run after the
 * engine closes.
 */
final class HoldTimers {

	private static final Logger logger = LoggerFactory.getLogger(HoldTimers.class);

	private final LockEngine engine;

	private final RevocationWatch revocationWatch;

	// the cap of holds whose request has none; null for none
	private volatile @Nullable Duration defaultMaxHold;

	// timers that end the holds kept for their minHold; they still run after close
	private final Set<ScheduledFuture<?>> lingers = ConcurrentHashMap.newKeySet();

	HoldTimers(LockEngine engine) {
		this.engine = engine;
		this.revocationWatch = new RevocationWatch(engine);
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
			RegistryEntry entry = hold.entry();
			ScheduledFuture<?> timer = this.engine.schedule(
					() -> this.engine.releases().takeAway(entry, LockLossReason.MAX_HOLD_EXCEEDED), cap.toNanos(),
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

	/**
	 * Keep a key its work released before its shortest hold had passed, and delete
	 * its node once it has, on this process's monotonic clock.
	 * @return whether it lingers; if not, it is to be released now
	 */
	boolean linger(Hold hold, MinHold minHold) {
		RegistryEntry entry = hold.entry();
		long remaining = minHold.remainingNanos();
		if (remaining <= 0 || !this.engine.registry().linger(entry, minHold)) {
			return false;
		}
		ScheduledFuture<?> timer = this.engine.schedule(() -> endLinger(hold), remaining, TimeUnit.NANOSECONDS);
		if (timer == null) {
			// the engine is closed: no timer to end it later, so it ends now
			return false;
		}
		this.lingers.add(timer);
		minHold.ended().whenComplete((ignored, ex) -> this.lingers.remove(timer));
		if (logger.isDebugEnabled()) {
			logger.debug("Keeping lock '{}' key '{}' for another {} ms of its minHold", entry.name(),
					KeyEncoder.abbreviate(entry.key()), TimeUnit.NANOSECONDS.toMillis(remaining));
		}
		return true;
	}

	// The shortest hold has passed: the node goes, through the usual release and its confirmation
	private void endLinger(Hold hold) {
		RegistryEntry entry = hold.entry();
		if (entry.isRemoved()) {
			// lost with its session meanwhile, or given up
			return;
		}
		if (this.engine.client().getState() != CuratorFrameworkState.STARTED) {
			// the client closed, and its session with it: the node went then
			logger.debug("Lock '{}' key '{}' ended with the session of the closed client", entry.name(),
					KeyEncoder.abbreviate(entry.key()));
			this.engine.registry().remove(entry);
			return;
		}
		this.engine.releases().releaseNow(hold).whenComplete((ignored, ex) -> {
			// a failure is logged and confirmed later by the release path itself
		});
		MinHold minHold = entry.minHold();
		if (minHold != null) {
			// no longer held by this process, as for a release whose work waits for it
			minHold.end();
		}
	}

	/**
	 * Whether a task of the engine's timer ends a lingering hold, and so still runs
	 * after the engine closes.
	 */
	boolean isLinger(Runnable task) {
		return this.lingers.contains(task);
	}

}
