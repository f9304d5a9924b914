package dev.zklock.core;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockDeadlock;
import dev.zklock.LockDeadlock.LockRef;
import dev.zklock.LockDeadlockListener;

/**
 * Tells of the deadlocks this engine ended, on the victim's instance once its wait
 * ended: a WARN line naming the lock, key and every edge, the last
 * {@link DeadlockDetectionSettings#history()} deadlocks newest first, and the
 * {@link LockDeadlockListener}s. A listener that fails is logged and never undoes
 * the verdict.
 */
final class DeadlockAnnouncer {

	private static final Logger logger = LoggerFactory.getLogger(DeadlockAnnouncer.class);

	private final List<LockDeadlockListener> listeners = new CopyOnWriteArrayList<>();

	private final ReentrantLock lock = new ReentrantLock();

	// under the lock: newest first
	private final ArrayDeque<LockDeadlock> history = new ArrayDeque<>();

	// under the lock
	private int limit = DeadlockDetectionSettings.DEFAULTS.history();

	void addListener(LockDeadlockListener listener) {
		this.listeners.add(listener);
	}

	void setLimit(int limit) {
		this.lock.lock();
		try {
			this.limit = limit;
			trim();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * The deadlocks this engine ended, newest first.
	 * @return at most the history's length
	 */
	List<LockDeadlock> history() {
		this.lock.lock();
		try {
			return List.copyOf(this.history);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A wait of this engine was ended to break a deadlock.
	 * @param deadlock the report its exception carries
	 */
	void announce(LockDeadlock deadlock) {
		LockRef waitsFor = deadlock.victimWaitsFor();
		logger.warn("Deadlock on lock '{}' key '{}': the wait of thread '{}' for it ({}) was ended to break the "
				+ "cycle:\n{}", waitsFor.name(), LockPaths.abbreviate(waitsFor.key()), deadlock.victim().thread(),
				waitsFor.mode(), deadlock.describe());
		this.lock.lock();
		try {
			this.history.addFirst(deadlock);
			trim();
		}
		finally {
			this.lock.unlock();
		}
		for (LockDeadlockListener listener : this.listeners) {
			try {
				listener.deadlockResolved(deadlock);
			}
			catch (RuntimeException ex) {
				// a meter or an audit must never fail the verdict
				logger.warn("Lock deadlock listener {} failed for lock '{}' key '{}'", listener, waitsFor.name(),
						LockPaths.abbreviate(waitsFor.key()), ex);
			}
		}
	}

	// Under the lock
	private void trim() {
		while (this.history.size() > this.limit) {
			this.history.removeLast();
		}
	}

}
