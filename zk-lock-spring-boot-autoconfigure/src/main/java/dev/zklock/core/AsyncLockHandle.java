package dev.zklock.core;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import dev.zklock.LockContext;
import dev.zklock.LockException;
import dev.zklock.LockLostException;
import dev.zklock.annotation.LockMode;

/**
 * A lock taken by {@link AsyncLockManager}: it belongs to no thread, so any thread
 * may {@link #release()} it, and it is not re-entrant. It is a {@link LockContext}
 * for the asynchronous work it guards.
 */
public final class AsyncLockHandle implements LockContext {

	private final AsyncLockManager manager;

	private final String name;

	private final List<String> keys;

	private final List<AsyncHold> holds;

	private final boolean acquired;

	private final Instrumentations.Acquisition instrumentation;

	private volatile boolean released;

	AsyncLockHandle(AsyncLockManager manager, String name, List<String> keys, List<AsyncHold> holds,
			boolean acquired, Instrumentations.Acquisition instrumentation) {
		this.manager = manager;
		this.instrumentation = instrumentation;
		this.name = name;
		this.keys = keys;
		this.holds = holds;
		this.acquired = acquired;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public List<String> keys() {
		return this.keys;
	}

	@Override
	public LockMode mode() {
		return LockMode.MUTEX;
	}

	/**
	 * Whether the lock was acquired within the timeout and is not released yet.
	 * Stays true while the lock is in doubt or lost, until released.
	 * @return whether this handle holds the lock
	 */
	public boolean isAcquired() {
		return this.acquired && !this.released;
	}

	/**
	 * The largest token of the handle's keys: the token of the key locked last.
	 */
	@Override
	public long fencingToken() {
		checkOpen();
		long token = 0;
		for (AsyncHold hold : this.holds) {
			token = Math.max(token, hold.node().czxid());
		}
		return token;
	}

	@Override
	public long fencingToken(String key) {
		return hold(key).node().czxid();
	}

	@Override
	public String nodePath() {
		checkOpen();
		if (this.holds.size() != 1) {
			throw new IllegalStateException("Lock '" + this.name + "' covers " + this.holds.size()
					+ " keys, each with its own node; use nodePath(key)");
		}
		return this.holds.get(0).node().path();
	}

	@Override
	public String nodePath(String key) {
		return hold(key).node().path();
	}

	@Override
	public boolean isHeld() {
		if (!isAcquired()) {
			return false;
		}
		for (AsyncHold hold : this.holds) {
			if (hold.state() != LockState.HELD) {
				return false;
			}
		}
		return true;
	}

	@Override
	public void assertHeld() {
		if (!this.acquired) {
			throw new LockLostException("Lock '" + this.name + "' " + describeKeys()
					+ " was never acquired; check isAcquired() before doing the guarded work", this.name, null);
		}
		if (this.released) {
			throw new LockLostException("Lock '" + this.name + "' " + describeKeys()
					+ " was released already; do the guarded work before the returned work completes", this.name,
					null);
		}
		for (AsyncHold hold : this.holds) {
			LockState state = hold.state();
			if (state != LockState.HELD) {
				throw new LockLostException(describeLoss(hold, state), this.name, hold.key());
			}
		}
	}

	/**
	 * Whether this handle covers the key of the given lock.
	 * @param lockName a lock name
	 * @param key a key, or {@code null} for a lock without keys
	 * @return whether it does
	 */
	public boolean covers(String lockName, String key) {
		if (!isAcquired() || !this.name.equals(lockName)) {
			return false;
		}
		for (AsyncHold hold : this.holds) {
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
		if (!this.acquired || this.released) {
			return CompletableFuture.completedFuture(null);
		}
		this.released = true;
		return this.manager.release(this);
	}

	List<AsyncHold> holds() {
		return this.holds;
	}

	Instrumentations.Acquisition instrumentation() {
		return this.instrumentation;
	}

	private AsyncHold hold(String key) {
		checkOpen();
		for (AsyncHold hold : this.holds) {
			if (Objects.equals(hold.key(), key)) {
				return hold;
			}
		}
		throw new IllegalArgumentException("Lock '" + this.name + "' does not cover key '" + KeyEncoder.abbreviate(key)
				+ "'; its keys are " + describeKeys());
	}

	private String describeLoss(AsyncHold hold, LockState state) {
		String lock = "Lock '" + this.name + "' key '" + KeyEncoder.abbreviate(hold.key()) + "' (asynchronous MUTEX, "
				+ "fencing token " + hold.node().czxid() + ")";
		if (state == LockState.IN_DOUBT) {
			return lock + " is in doubt: the ZooKeeper connection is suspended, so another process may hold it. "
					+ "Do not write what it protects now; it is held again if the client reconnects with the same "
					+ "session";
		}
		return lock + " was lost (" + hold.lossReason() + "): another process may hold it now. Abandon the work it "
				+ "protects; a resource that checks fencing tokens rejects this holder's late writes";
	}

	private String describeKeys() {
		return this.keys.isEmpty() ? "(no key)" : "keys " + this.keys.stream().map(KeyEncoder::abbreviate).toList();
	}

	private void checkOpen() {
		if (!isAcquired()) {
			throw new IllegalStateException("Lock '" + this.name + "' is not held, so it has no fencing token or node");
		}
	}

	@Override
	public String toString() {
		return "AsyncLockHandle[name=" + this.name + ", keys=" + this.keys.size() + ", acquired=" + isAcquired() + "]";
	}

}
