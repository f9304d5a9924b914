package dev.zklock.integration;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockLostException;
import dev.zklock.LockRequest;
import dev.zklock.LockManager;

/**
 * The {@link Lock} of one key of a {@link ZkLockRegistry}: a zk-lock MUTEX held by
 * one thread at a time, re-entrant for that thread. The ZooKeeper node is created at
 * the outermost lock and deleted at the matching unlock. When the hold was lost (its
 * session expired, it was revoked or exceeded {@code zk-lock.max-hold}), the
 * holder's next {@code tryLock} answers {@code false} and drops the lost hold, so that
 * {@code LockRegistryLeaderInitiator} steps down and then competes again; its next
 * {@code lock} throws {@link LockLostException}.
 */
final class ZkRegistryLock implements Lock {

	private static final Logger logger = LoggerFactory.getLogger(ZkRegistryLock.class);

	private static final Duration ENDLESS = ChronoUnit.FOREVER.getDuration();

	private final LockManager lockManager;

	private final String name;

	private final String key;

	// written by the holder only; the holder's own reads need no ordering, others only compare it
	private volatile @Nullable Thread owner;

	private @Nullable LockHandle handle;

	private int holds;

	private volatile long lastUsed = System.nanoTime();

	ZkRegistryLock(LockManager lockManager, String name, String key) {
		this.lockManager = lockManager;
		this.name = name;
		this.key = key;
	}

	@Override
	public void lock() {
		if (reenterOrThrow()) {
			return;
		}
		boolean interrupted = Thread.interrupted();
		try {
			while (true) {
				try {
					acquire(ENDLESS);
					return;
				}
				catch (LockException ex) {
					if (!(ex.getCause() instanceof InterruptedException)) {
						throw ex;
					}
					// lock() is not interruptible: wait again, and keep the flag for the caller
					Thread.interrupted();
					interrupted = true;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException("Interrupted before locking " + describe());
		}
		if (!reenterOrThrow()) {
			acquireInterruptibly(ENDLESS);
		}
	}

	@Override
	public boolean tryLock() {
		Boolean reentered = reenter();
		return (reentered != null) ? reentered : acquire(Duration.ZERO);
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException("Interrupted before locking " + describe());
		}
		Boolean reentered = reenter();
		return (reentered != null) ? reentered
				: acquireInterruptibly(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
	}

	@Override
	public void unlock() {
		Thread current = Thread.currentThread();
		if (this.owner != current) {
			throw new IllegalMonitorStateException("Thread '" + current.getName() + "' does not hold " + describe()
					+ ": unlock() must be called by the thread that locked it, once per lock");
		}
		if (--this.holds > 0) {
			return;
		}
		LockHandle released = this.handle;
		this.handle = null;
		this.owner = null;
		this.lastUsed = System.nanoTime();
		if (released != null) {
			if (!released.isHeld()) {
				logger.warn("{} was not held any more when unlocked; its loss was reported to the "
						+ "LockLossListeners", describe());
			}
			released.close();
		}
	}

	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("ZkLockRegistry locks have no conditions (" + describe() + ")");
	}

	boolean isLocked() {
		return this.owner != null;
	}

	long lastUsed() {
		return this.lastUsed;
	}

	void touch() {
		this.lastUsed = System.nanoTime();
	}

	// true: re-entered; false: this thread's hold was lost and is dropped; null: this thread holds nothing
	private @Nullable Boolean reenter() {
		if (this.owner != Thread.currentThread()) {
			return null;
		}
		LockHandle held = this.handle;
		if (held != null && held.isHeld()) {
			this.holds++;
			return true;
		}
		logger.warn("{} was lost by its holder '{}', who asks again: it is dropped, and the next attempt competes "
				+ "anew", describe(), Thread.currentThread().getName());
		drop();
		return false;
	}

	private boolean reenterOrThrow() {
		Boolean reentered = reenter();
		if (reentered == null) {
			return false;
		}
		if (!reentered) {
			throw new LockLostException("This thread held " + describe() + " and lost it; it was dropped: call "
					+ "unlock() no more for it, and lock() again to compete anew", this.name, this.key);
		}
		return true;
	}

	private void drop() {
		LockHandle lost = this.handle;
		this.handle = null;
		this.holds = 0;
		this.owner = null;
		if (lost != null) {
			lost.close();
		}
	}

	private boolean acquireInterruptibly(Duration timeout) throws InterruptedException {
		try {
			return acquire(timeout);
		}
		catch (LockException ex) {
			if (ex.getCause() instanceof InterruptedException) {
				Thread.interrupted();
				InterruptedException interrupted = new InterruptedException("Interrupted while waiting for "
						+ describe() + "; nothing is left in ZooKeeper");
				interrupted.initCause(ex);
				throw interrupted;
			}
			throw ex;
		}
	}

	private boolean acquire(Duration timeout) {
		LockHandle acquired = this.lockManager
			.acquire(LockRequest.named(this.name).keys(this.key).timeout(timeout).build());
		this.lastUsed = System.nanoTime();
		if (!acquired.isAcquired()) {
			return false;
		}
		this.handle = acquired;
		this.holds = 1;
		this.owner = Thread.currentThread();
		logger.debug("{} acquired with fencing token {}", describe(), acquired.fencingToken());
		return true;
	}

	private String describe() {
		return ZkLockRegistry.describe(this.name, this.key);
	}

	@Override
	public String toString() {
		Thread holder = this.owner;
		return "ZkRegistryLock[" + this.name + "/" + this.key + ((holder != null) ? ", held by " + holder.getName()
				: "") + "]";
	}

}
