package dev.zklock.core;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import dev.zklock.LockContext;
import dev.zklock.LockException;
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
