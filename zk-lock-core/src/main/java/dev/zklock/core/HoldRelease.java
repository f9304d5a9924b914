package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockException;
import dev.zklock.LockLossReason;

/**
 * How a {@link Hold} ends: released by its work, now or, within its
 * {@code minHold}, once that has passed ({@link HoldTimers}); or taken away from
 * its holder at shutdown, past its {@code maxHold} or on a revocation. A release
 * that ZooKeeper does not confirm is confirmed later by the
 * {@link ConnectionLossHandler}.
 */
final class HoldRelease {

	private static final Logger logger = LoggerFactory.getLogger(HoldRelease.class);

	private final LockEngine engine;

	HoldRelease(LockEngine engine) {
		this.engine = engine;
	}

	/**
	 * Release holds, the last taken first. Every hold is released; a release that
	 * ZooKeeper does not confirm is confirmed later by the loss handler.
	 * @param holds the holds
	 * @return completes once every release is confirmed, else exceptionally with a
	 * {@link LockException} (the locks are no longer held by this process either way)
	 */
	CompletableFuture<Void> release(List<Hold> holds) {
		if (holds.isEmpty()) {
			return CompletableFuture.completedFuture(null);
		}
		String name = holds.get(0).entry().name();
		List<CompletableFuture<Void>> releases = new ArrayList<>(holds.size());
		for (int i = holds.size() - 1; i >= 0; i--) {
			try {
				releases.add(release(holds.get(i)));
			}
			catch (RuntimeException ex) {
				// one release that throws must not keep the others from being released
				releases.add(CompletableFuture.failedFuture(releaseFailure(name, ex)));
			}
		}
		if (releases.size() == 1) {
			return releases.get(0);
		}
		return allReleased(name, releases);
	}

	/**
	 * One future for several releases, once each has ended; it always completes,
	 * whatever they failed with.
	 * @param name the lock name, for a failure that does not say it
	 * @param releases the releases
	 * @return completes once every release is confirmed, else exceptionally with a
	 * {@link LockException} for the first failure, the others suppressed in it
	 */
	static CompletableFuture<Void> allReleased(String name, List<CompletableFuture<Void>> releases) {
		CompletableFuture<Void> all = new CompletableFuture<>();
		CompletableFuture.allOf(releases.toArray(new CompletableFuture<?>[0])).whenComplete((ignored, ex) -> {
			try {
				@Nullable LockException failure = null;
				for (CompletableFuture<Void> release : releases) {
					Throwable cause = release.handle((v, t) -> t).join();
					if (cause == null) {
						continue;
					}
					Throwable unwrapped = LockEngine.unwrap(cause);
					if (failure == null) {
						failure = releaseFailure(name, unwrapped);
					}
					else if (unwrapped != failure) {
						// one exception may have failed two releases: it cannot suppress itself
						failure.addSuppressed(unwrapped);
					}
				}
				if (failure != null) {
					all.completeExceptionally(failure);
				}
				else {
					all.complete(null);
				}
			}
			catch (Throwable unexpected) {
				// a caller blocks on this future: it must complete, whatever went wrong here
				all.completeExceptionally(releaseFailure(name, unexpected));
			}
		});
		return all;
	}

	// A release failure as the LockException callers expect, for one that is not already
	private static LockException releaseFailure(String name, Throwable cause) {
		return (cause instanceof LockException lockException) ? lockException
				: new LockException("Could not release lock '" + name + "': " + cause + "; the lock is no longer held "
						+ "by this process, and its nodes are deleted in the background or when the session ends",
						cause);
	}

	private CompletableFuture<Void> release(Hold hold) {
		RegistryEntry entry = hold.entry();
		entry.cancelCap();
		MinHold minHold = entry.minHold();
		if (minHold != null && this.engine.holdTimers().linger(hold, minHold)) {
			// the work is done; the node stays until the shortest hold has passed
			return CompletableFuture.completedFuture(null);
		}
		return releaseNow(hold);
	}

	/**
	 * Delete the node of a hold now, whatever its shortest hold.
	 * @param hold the hold
	 * @return completes once ZooKeeper confirmed it
	 */
	CompletableFuture<Void> releaseNow(Hold hold) {
		RegistryEntry entry = hold.entry();
		LockRegistry registry = this.engine.registry();
		if (entry.isAbandoned()) {
			// taken away, its node deleted already: the loss was announced then
			registry.remove(entry);
			return CompletableFuture.completedFuture(null);
		}
		// read before the transition: a local hand-off passes only a hold held for sure
		boolean sound = entry.local() != null && hold.state() == LockState.HELD;
		// a lost lock went with its session: nothing to confirm
		boolean sessionGone = registry.transition(entry, RegistryEntry.OWNED, LockState.RELEASING) == null;
		return hold.attempt().release(sound).handle((ignored, ex) -> {
			if (ex == null || sessionGone) {
				registry.remove(entry);
			}
			else {
				registry.unconfirmed(entry);
				this.engine.lossHandler().releaseFailed();
			}
			if (ex == null) {
				if (logger.isDebugEnabled()) {
					logger.debug("Released lock '{}' key '{}' ({})", entry.name(), KeyEncoder.abbreviate(entry.key()),
							entry.mode());
				}
				return null;
			}
			Throwable cause = LockEngine.unwrap(ex);
			String key = KeyEncoder.abbreviate(entry.key());
			logger.error("Could not release lock '{}' key '{}' ({} mode) at {}; this process no longer holds it, and "
					+ "Curator deletes the node in the background or ZooKeeper when the session ends", entry.name(),
					key, entry.mode(), entry.node().path(), cause);
			throw new CompletionException(new LockException("Could not release lock '" + entry.name() + "' key '" + key
					+ "' at " + entry.node().path() + ": " + cause + "; the lock is no longer held by this process "
					+ "and its node is deleted in the background, " + FailureAdvice.forFailure(cause, this.engine.basePath()), cause));
		});
	}

	/**
	 * Take a lock away from its holder: lost and announced first, then its node
	 * deleted so that the next waiter gets it; the holder's later release does
	 * nothing. A {@link LockLossReason#REVOKED revoked} node is gone already.
	 * @return completes once the node is confirmed gone
	 */
	CompletableFuture<Void> takeAway(RegistryEntry entry, LockLossReason reason) {
		if (!RegistryEntry.OWNED.contains(entry.state()) || entry.isLingering()) {
			// a kept hold has no work to stop: it ends at its time or with the session
			return CompletableFuture.completedFuture(null);
		}
		// marked first: a release that comes now leaves the node to the deletion below
		entry.abandon();
		entry.cancelCap();
		this.engine.losses().takeAway(entry, reason);
		return (reason != LockLossReason.REVOKED) ? Nodes.delete(this.engine.client(), entry.node().path())
				: CompletableFuture.completedFuture(null);
	}

}
