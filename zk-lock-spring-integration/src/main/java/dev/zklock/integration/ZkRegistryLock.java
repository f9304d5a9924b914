package dev.zklock.integration;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockConnectionException;
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
 * <p>
 * While ZooKeeper is unreachable the lock keeps {@link Lock}'s contract where
 * zk-lock's own API throws a {@link LockConnectionException}: {@code tryLock()}
 * answers {@code false} at once and {@code tryLock(time, unit)} once its time has
 * run out; {@code lock()} and {@code lockInterruptibly()} wait on until ZooKeeper
 * is back; {@code unlock()} gives the hold up and returns, with a warning when
 * ZooKeeper did not confirm the deletion of the node, which then goes in the
 * background or with the session.
 */
final class ZkRegistryLock implements Lock {

	private static final Logger logger = LoggerFactory.getLogger(ZkRegistryLock.class);

	private static final Duration ENDLESS = ChronoUnit.FOREVER.getDuration();

	// the deadline of a wait without end
	private static final long ENDLESS_DEADLINE = Long.MIN_VALUE;

	// a wait at least this long never ends, as for zk-lock's engine
	private static final long ENDLESS_NANOS = Long.MAX_VALUE / 4;

	// between the rounds of a wait through a ZooKeeper outage
	private static final long OUTAGE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

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
					acquireBy(ENDLESS_DEADLINE, "lock()");
					return;
				}
				catch (InterruptedException ex) {
					// lock() is not interruptible: wait again, and keep the flag for the caller
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
			acquireBy(ENDLESS_DEADLINE, "lockInterruptibly()");
		}
	}

	@Override
	public boolean tryLock() {
		Boolean reentered = reenter();
		if (reentered != null) {
			return reentered;
		}
		try {
			return acquire(Duration.ZERO);
		}
		catch (LockConnectionException ex) {
			// Lock.tryLock answers whether the lock was free: with ZooKeeper unreachable, it was not to be had
			logUnreachable(ex);
			return false;
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException("Interrupted before locking " + describe());
		}
		Boolean reentered = reenter();
		if (reentered != null) {
			return reentered;
		}
		long nanos = Math.max(0, unit.toNanos(time));
		if (nanos >= ENDLESS_NANOS) {
			// as good as endless, as for the engine; and a deadline this far would overflow
			return acquireBy(ENDLESS_DEADLINE, "tryLock(time, unit)");
		}
		return acquireBy(System.nanoTime() + nanos, "tryLock(time, unit)");
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
			try {
				released.close();
			}
			catch (LockException ex) {
				// Lock.unlock has no failure to report: this process no longer holds the lock either way, and the
				// engine deletes the node once ZooKeeper answers, or ZooKeeper does when the session ends
				logger.warn("{} is unlocked, but ZooKeeper did not confirm the deletion of its node: it is deleted "
						+ "in the background or when the session ends ({})", describe(), ex.getMessage());
			}
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

	/**
	 * Wait for the lock until a deadline, through outages of ZooKeeper: an outage
	 * that ends zk-lock's wait sooner, with a {@link LockConnectionException} (Curator
	 * gave up on a request), starts the wait again after a pause, so that the lock
	 * waits as long as {@link Lock} says whether ZooKeeper answers or not.
	 * @param deadline when to give up, on {@link System#nanoTime()}'s clock, or
	 * {@link #ENDLESS_DEADLINE} for never
	 * @param caller the method that waits, for the log
	 * @return whether the lock was acquired: {@code false} once the deadline passed
	 * @throws InterruptedException when interrupted while waiting
	 */
	private boolean acquireBy(long deadline, String caller) throws InterruptedException {
		boolean reported = false;
		while (true) {
			long remaining = (deadline == ENDLESS_DEADLINE) ? Long.MAX_VALUE : deadline - System.nanoTime();
			try {
				return acquireInterruptibly((remaining == Long.MAX_VALUE) ? ENDLESS
						: Duration.ofNanos(Math.max(0, remaining)));
			}
			catch (LockConnectionException ex) {
				if (deadline != ENDLESS_DEADLINE && deadline - System.nanoTime() <= 0) {
					// the time ran out while ZooKeeper was unreachable: Lock.tryLock answers false, not an exception
					logUnreachable(ex);
					return false;
				}
				if (!reported) {
					logger.warn("{}: ZooKeeper is unreachable, so {} waits on until it is back ({})", describe(),
							caller, ex.getMessage());
					reported = true;
				}
				// a pause between rounds, should a round ever fail at once
				LockSupport.parkNanos(this, (deadline == ENDLESS_DEADLINE) ? OUTAGE_PAUSE_NANOS
						: Math.min(OUTAGE_PAUSE_NANOS, Math.max(0, deadline - System.nanoTime())));
				if (Thread.interrupted()) {
					throw new InterruptedException("Interrupted while waiting for " + describe()
							+ " through a ZooKeeper outage; nothing is left in ZooKeeper");
				}
			}
		}
	}

	private void logUnreachable(LockConnectionException ex) {
		logger.debug("{} not acquired: ZooKeeper is unreachable ({})", describe(), ex.getMessage());
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
