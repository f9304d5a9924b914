package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockException;
import dev.zklock.LockLossReason;
import dev.zklock.LockState;
import dev.zklock.core.LockRegistry.Hold;

/**
 * How a {@link Hold} ends: released by its work, now or, within its
 * {@code minHold}, once that has passed (lingering, on this process's monotonic
 * clock; those timers still run after the engine closes); or taken away from
 * its holder at shutdown, past its {@code maxHold} or on a revocation. A release
 * that ZooKeeper does not confirm is confirmed later by the
 * {@link ConnectionLossHandler}.
 */
final class HoldRelease {

	private static final Logger logger = LoggerFactory.getLogger(HoldRelease.class);

	private final CuratorFramework client;

	private final LockRegistry registry;

	private final LossAnnouncer losses;

	private final ConnectionLossHandler lossHandler;

	private final EngineTimer timer;

	private final String basePath;

	// timers that end the holds kept for their minHold; they still run after close
	private final Set<ScheduledFuture<?>> lingers = ConcurrentHashMap.newKeySet();

	/**
	 * Create the release path of an engine.
	 * @param client the client, for deletions
	 * @param registry the registry of every hold
	 * @param losses announces a hold taken away
	 * @param lossHandler confirms a release ZooKeeper did not answer, and ends every hold once the client is found
	 * closed
	 * @param timer ends the holds kept for their minHold
	 * @param basePath the base path, for failure advice
	 */
	HoldRelease(CuratorFramework client, LockRegistry registry, LossAnnouncer losses, ConnectionLossHandler lossHandler,
			EngineTimer timer, String basePath) {
		this.client = client;
		this.registry = registry;
		this.losses = losses;
		this.lossHandler = lossHandler;
		this.timer = timer;
		this.basePath = basePath;
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
		LockRegistry.Entry entry = hold.entry();
		entry.cancelCap();
		MinHold minHold = entry.minHold();
		if (minHold != null && linger(hold, minHold)) {
			// the work is done; the node stays until the shortest hold has passed
			return CompletableFuture.completedFuture(null);
		}
		return releaseNow(hold);
	}

	/**
	 * Delete the node of a hold now, whatever its shortest hold.
	 * @param hold the hold
	 * @return completes once ZooKeeper confirmed it, or once the client is found
	 * closed (the node goes with its session)
	 */
	CompletableFuture<Void> releaseNow(Hold hold) {
		LockRegistry.Entry entry = hold.entry();
		LockRegistry registry = this.registry;
		if (entry.isAbandoned()) {
			// taken away, its node deleted already: the loss was announced then
			registry.remove(entry);
			return CompletableFuture.completedFuture(null);
		}
		if (this.client.getState() != CuratorFrameworkState.STARTED) {
			// the application closed the client first: the node went with the session, nothing is left to delete,
			// and the entry goes so that no lock is shown as releasing forever
			this.lossHandler.clientClosed();
			registry.remove(entry);
			return CompletableFuture.completedFuture(null);
		}
		// read before the transition: a local hand-off passes only a hold held for sure
		boolean sound = entry.local() != null && hold.state() == LockState.HELD;
		// a lost lock went with its session: nothing to confirm
		boolean sessionGone = registry.transition(entry, LockRegistry.Entry.OWNED, LockState.RELEASING) == null;
		return hold.attempt().release(sound).handle((ignored, ex) -> {
			if (ex != null && this.client.getState() != CuratorFrameworkState.STARTED) {
				// closed while the delete was on its way: no one could ever confirm it, and the node goes with the
				// session, as for a release that finds the client closed
				registry.remove(entry);
				this.lossHandler.clientClosed();
				logger.warn("Lock '{}' key '{}' ({} mode): the Curator client was closed before ZooKeeper confirmed the "
						+ "deletion of {}; this process no longer holds it, and the node goes with the client's session. "
						+ "Close the client only after the releases of its locks have completed ({})", entry.name(),
						LockPaths.abbreviate(entry.key()), entry.mode(), entry.node().path(),
						LockEngine.unwrap(ex).toString());
				return null;
			}
			if (ex == null || sessionGone) {
				registry.remove(entry);
			}
			else {
				registry.unconfirmed(entry);
				this.lossHandler.releaseFailed();
			}
			if (ex == null) {
				if (logger.isDebugEnabled()) {
					logger.debug("Released lock '{}' key '{}' ({})", entry.name(), LockPaths.abbreviate(entry.key()),
							entry.mode());
				}
				return null;
			}
			Throwable cause = LockEngine.unwrap(ex);
			String key = LockPaths.abbreviate(entry.key());
			logger.error("Could not release lock '{}' key '{}' ({} mode) at {}; this process no longer holds it, and "
					+ "Curator deletes the node in the background or ZooKeeper when the session ends", entry.name(),
					key, entry.mode(), entry.node().path(), cause);
			throw new CompletionException(new LockException("Could not release lock '" + entry.name() + "' key '" + key
					+ "' at " + entry.node().path() + ": " + cause + "; the lock is no longer held by this process "
					+ "and its node is deleted in the background, " + FailureAdvice.forFailure(cause, this.basePath), cause));
		});
	}

	/**
	 * Take a lock away from its holder: lost and announced first, then its node
	 * deleted so that the next waiter gets it; the holder's later release does
	 * nothing. A {@link LockLossReason#REVOKED revoked} node is gone already.
	 * @return completes once the node is confirmed gone
	 */
	CompletableFuture<Void> takeAway(LockRegistry.Entry entry, LockLossReason reason) {
		if (!LockRegistry.Entry.OWNED.contains(entry.state()) || entry.isLingering()) {
			// a kept hold has no work to stop: it ends at its time or with the session
			return CompletableFuture.completedFuture(null);
		}
		// marked first: a release that comes now leaves the node to the deletion below
		entry.abandon();
		entry.cancelCap();
		this.losses.takeAway(entry, reason);
		return (reason != LockLossReason.REVOKED) ? Nodes.delete(this.client, entry.node().path())
				: CompletableFuture.completedFuture(null);
	}

	/**
	 * Keep a key its work released before its shortest hold had passed, and delete
	 * its node once it has, on this process's monotonic clock.
	 * @return whether it lingers; if not, it is to be released now
	 */
	boolean linger(Hold hold, MinHold minHold) {
		LockRegistry.Entry entry = hold.entry();
		long remaining = minHold.remainingNanos();
		if (remaining <= 0 || !this.registry.linger(entry, minHold)) {
			return false;
		}
		ScheduledFuture<?> timer = this.timer.schedule(() -> endLinger(hold), remaining, TimeUnit.NANOSECONDS);
		if (timer == null) {
			// the engine is closed: no timer to end it later, so it ends now
			return false;
		}
		this.lingers.add(timer);
		minHold.ended().whenComplete((ignored, ex) -> this.lingers.remove(timer));
		if (logger.isDebugEnabled()) {
			logger.debug("Keeping lock '{}' key '{}' for another {} ms of its minHold", entry.name(),
					LockPaths.abbreviate(entry.key()), TimeUnit.NANOSECONDS.toMillis(remaining));
		}
		return true;
	}

	// The shortest hold has passed: the node goes, through the usual release and its confirmation
	private void endLinger(Hold hold) {
		LockRegistry.Entry entry = hold.entry();
		if (entry.isRemoved()) {
			// lost with its session meanwhile, or given up
			return;
		}
		if (this.client.getState() != CuratorFrameworkState.STARTED) {
			// the client closed, and its session with it: the node went then, and this kept lock ends with the others
			this.lossHandler.clientClosed();
			return;
		}
		releaseNow(hold).whenComplete((ignored, ex) -> {
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
