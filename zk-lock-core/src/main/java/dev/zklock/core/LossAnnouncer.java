package dev.zklock.core;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockInfo;
import dev.zklock.LockLossListener;
import dev.zklock.LockLossReason;

/**
 * Marks a lock lost in the {@link LockRegistry} and says so: logged, told to the
 * {@link LockLossListener}s, its thread interrupted if so configured. One place for
 * every loss, whether the connection lost it ({@link ConnectionLossHandler}) or the
 * engine took it away (shutdown, maxHold, revocation).
 */
final class LossAnnouncer {

	private static final Logger logger = LoggerFactory.getLogger(LossAnnouncer.class);

	private final LockRegistry registry;

	private final List<LockLossListener> listeners = new CopyOnWriteArrayList<>();

	private volatile boolean interruptOnLoss;

	LossAnnouncer(LockRegistry registry) {
		this.registry = registry;
	}

	void addListener(LockLossListener listener) {
		this.listeners.add(listener);
	}

	void setInterruptOnLoss(boolean interruptOnLoss) {
		this.interruptOnLoss = interruptOnLoss;
	}

	/**
	 * Take away a lock its holder still has, because the application shuts down
	 * ({@link LockLossReason#SHUTDOWN}), the hold outlived its cap
	 * ({@link LockLossReason#MAX_HOLD_EXCEEDED}) or its node was revoked
	 * ({@link LockLossReason#REVOKED}): lost, listeners told, the thread
	 * interrupted if so configured. Its node is the caller's to delete, if not gone already.
	 * @param entry the entry, held or in doubt
	 * @param reason why
	 * @return whether it was held or in doubt until now
	 */
	boolean takeAway(LockRegistry.Entry entry, LockLossReason reason) {
		LockRegistry.Loss loss = this.registry.lose(entry, reason, this.interruptOnLoss);
		endTenure(entry, loss, reason);
		if (loss != LockRegistry.Loss.OF_HOLDER) {
			return false;
		}
		// a duration: by the monotonic clock, which a wall-clock step does not skew
		long heldMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - entry.sinceNanos());
		if (reason == LockLossReason.SHUTDOWN) {
			logger.warn("{} is given up at shutdown after {} ms held, as its work did not end within the shutdown's "
					+ "drain timeout; its node is deleted, so another process may take it now (fencing token {})",
					describe(entry), heldMillis, entry.fencingToken());
		}
		else if (reason == LockLossReason.REVOKED) {
			logger.warn("{} was revoked after {} ms held: another client deleted its node, so another process may "
					+ "take it now while its work goes on unless interrupted (fencing token {})", describe(entry),
					heldMillis, entry.fencingToken());
		}
		else {
			logger.warn("{} is taken away after {} ms held, longer than its maxHold; its node is deleted, so another "
					+ "process may take it now while its work goes on unless interrupted (fencing token {})",
					describe(entry), heldMillis, entry.fencingToken());
		}
		tellListeners(entry, reason);
		return true;
	}

	/**
	 * Mark a lock lost because of the connection or its node, and announce it when
	 * its holder had it; a key of an acquisition still under way starts over quietly.
	 * @param entry the entry
	 * @param reason why
	 */
	void lose(LockRegistry.Entry entry, LockLossReason reason) {
		LockRegistry.Loss loss = this.registry.lose(entry, reason, this.interruptOnLoss);
		endTenure(entry, loss, reason);
		if (loss == LockRegistry.Loss.OF_PENDING) {
			logger.debug("Lock '{}' key '{}' was lost ({}) before its acquisition completed, which starts over",
					entry.name(), LockPaths.abbreviate(entry.key()), reason);
		}
		if (loss != LockRegistry.Loss.OF_HOLDER) {
			return;
		}
		logger.error("{} was lost ({}): another process may hold it now; its fencing token was {}", describe(entry),
				reason, entry.fencingToken());
		tellListeners(entry, reason);
	}

	// A local holder's loss ends its tenure for the other local holders too
	private static void endTenure(LockRegistry.Entry entry, LockRegistry.Loss loss, LockLossReason reason) {
		LocalAttempt local = entry.local();
		if (local != null && loss != LockRegistry.Loss.NONE) {
			local.lost(reason);
		}
	}

	private void tellListeners(LockRegistry.Entry entry, LockLossReason reason) {
		LockInfo info = entry.toInfo();
		for (LockLossListener listener : this.listeners) {
			try {
				listener.lockLost(info, reason);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock loss listener {} failed for lock '{}'", listener, entry.name(), ex);
			}
		}
	}

	private static String describe(LockRegistry.Entry entry) {
		String lock = "'" + entry.name() + "' key '" + LockPaths.abbreviate(entry.key()) + "'";
		return (entry.thread() != null) ? "Lock " + lock + " held by thread '" + entry.threadName() + "'"
				: "Asynchronous lock " + lock;
	}

}
