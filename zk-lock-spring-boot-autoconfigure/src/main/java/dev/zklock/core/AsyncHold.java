package dev.zklock.core;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;

import dev.zklock.LockLossReason;
import dev.zklock.annotation.LockMode;

/**
 * One key held by an {@link AsyncLockHandle}: the mutex attempt that won, its node
 * and whether the connection still vouches for it. The state changes under the
 * hold's monitor.
 */
final class AsyncHold implements HeldKey {

	private final String name;

	private final String key;

	private final String path;

	private final AsyncMutex mutex;

	private final LockNode node;

	private final Instant since = Instant.now();

	private LockState state = LockState.HELD;

	private LockLossReason lossReason;

	AsyncHold(String name, String key, String path, AsyncMutex mutex, LockNode node) {
		this.name = name;
		this.key = key;
		this.path = path;
		this.mutex = mutex;
		this.node = node;
	}

	String name() {
		return this.name;
	}

	@Override
	public String key() {
		return this.key;
	}

	LockNode node() {
		return this.node;
	}

	@Override
	public long fencingToken() {
		return this.node.czxid();
	}

	@Override
	public String nodePath() {
		return this.node.path();
	}

	@Override
	public String describeMode() {
		return "asynchronous MUTEX";
	}

	@Override
	public synchronized LockState state() {
		return this.state;
	}

	@Override
	public synchronized LockLossReason lossReason() {
		return this.lossReason;
	}

	/**
	 * Move from one of the owned states to another state.
	 * @return whether the hold was in the expected state
	 */
	synchronized boolean transition(LockState from, LockState to) {
		if (this.state != from) {
			return false;
		}
		this.state = to;
		return true;
	}

	/**
	 * Mark the hold lost if it is held or in doubt.
	 * @return whether it was
	 */
	synchronized boolean lose(LockLossReason reason) {
		if (this.state != LockState.HELD && this.state != LockState.IN_DOUBT) {
			return false;
		}
		this.state = LockState.LOST;
		this.lossReason = reason;
		return true;
	}

	/**
	 * Release the node, at most once.
	 */
	CompletableFuture<Void> release() {
		synchronized (this) {
			if (this.state == LockState.RELEASING) {
				return CompletableFuture.completedFuture(null);
			}
			this.state = LockState.RELEASING;
		}
		return this.mutex.release();
	}

	LockInfo toInfo() {
		return new LockInfo(this.name, this.key, this.path, LockMode.MUTEX, "async", 0, this.since, state(),
				this.node.czxid());
	}

}
