package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import dev.zklock.LockContext;
import dev.zklock.LockException;
import dev.zklock.LockLostException;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.LockRegistry.Hold;

/**
 * A lock taken by {@link AsyncLockManager}, in any mode: it belongs to no thread,
 * so any thread may {@link #release()} it, and it is not re-entrant. It is a
 * {@link LockContext} for the asynchronous work it guards.
 */
public final class AsyncLockHandle extends AbstractLockContext {

	private final AsyncLockManager manager;

	private final LockMode mode;

	private final Instrumentations.Acquisition instrumentation;

	AsyncLockHandle(AsyncLockManager manager, String name, List<String> keys, LockMode mode, List<Hold> holds,
			boolean acquired, Instrumentations.Acquisition instrumentation) {
		super(name, keys, holds, acquired, "do the guarded work before the returned work completes");
		this.manager = manager;
		this.mode = mode;
		this.instrumentation = instrumentation;
	}

	@Override
	public LockMode mode() {
		return this.mode;
	}

	/**
	 * Whether this handle covers the key of the given lock.
	 * @param lockName a lock name
	 * @param key a key, or {@code null} for a lock without keys
	 * @return whether it does
	 */
	public boolean covers(String lockName, String key) {
		if (!isAcquired() || !name().equals(lockName)) {
			return false;
		}
		for (Hold hold : holds()) {
			if (Objects.equals(hold.key(), key)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Extend the hold, from any thread: its maxHold runs again from now, as
	 * {@link LockContext#extendMaxHold(Duration)} describes. Extending needs no call
	 * to ZooKeeper, so it returns at once.
	 * @param maxHold how long from now the lock may still be held, positive
	 * @throws LockLostException when the lock was never acquired, was released,
	 * lost, or reached its maxHold before this call
	 * @throws IllegalArgumentException when {@code maxHold} is zero or negative, or
	 * shorter than what is left of the lock's {@code minHold}
	 * @throws NullPointerException when {@code maxHold} is {@code null}
	 */
	@Override
	public void extendMaxHold(Duration maxHold) {
		super.extendMaxHold(maxHold);
	}

	/**
	 * Extend the hold, from any thread, as {@link #extendMaxHold(Duration)} does,
	 * and keep the lock at least {@code minHold} from now: a release that comes
	 * sooner leaves its node until then. A shortest hold that ends later already is
	 * kept. This is ShedLock's {@code extend(lockAtMostFor, lockAtLeastFor)}.
	 * @param maxHold how long from now the lock may still be held, positive
	 * @param minHold how long from now the lock is kept at least, not negative and
	 * not longer than {@code maxHold}; 0 leaves the shortest hold as it is
	 * @return completed once extended, or exceptionally with a
	 * {@link LockLostException} when the lock was never acquired, was released,
	 * lost, or reached its maxHold before this call, or with an
	 * {@link IllegalArgumentException} when a duration is out of range
	 * @throws NullPointerException when {@code maxHold} is {@code null}
	 */
	public CompletableFuture<Void> extendMaxHold(Duration maxHold, Duration minHold) {
		try {
			extend(holdTimers(), maxHold, Objects.requireNonNull(minHold, () -> "Lock '" + name()
					+ "': the minHold to extend it by must not be null; pass Duration.ZERO to keep it as it is"));
			return CompletableFuture.completedFuture(null);
		}
		catch (LockLostException | IllegalArgumentException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	HoldTimers holdTimers() {
		return this.manager.holdTimers();
	}

	/**
	 * Release the lock, from any thread. Releasing again, or releasing a handle that
	 * did not acquire, does nothing.
	 * @return completes on the manager's executor once ZooKeeper confirmed the
	 * release; exceptionally with a {@link LockException} when it could not be
	 * confirmed (the lock is no longer held by this process either way, and Curator
	 * keeps deleting the node in the background)
	 */
	public CompletableFuture<Void> release() {
		if (!markReleased()) {
			return CompletableFuture.completedFuture(null);
		}
		return this.manager.release(this);
	}

	Instrumentations.Acquisition instrumentation() {
		return this.instrumentation;
	}

	@Override
	public String toString() {
		return "AsyncLockHandle[name=" + name() + ", keys=" + keys().size() + ", acquired=" + isAcquired() + "]";
	}

}
