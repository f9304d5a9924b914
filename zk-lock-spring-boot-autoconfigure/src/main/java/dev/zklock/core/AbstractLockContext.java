package dev.zklock.core;

import java.util.List;
import java.util.Objects;

import dev.zklock.LockContext;
import dev.zklock.LockLossReason;
import dev.zklock.LockLostException;

/**
 * The {@link LockContext} of a lock handle, blocking or asynchronous, over the
 * {@link Hold}s of the keys one acquisition holds: fencing tokens, node paths and
 * whether the keys are still held. A handle supplies its holds and marks itself
 * released.
 */
abstract class AbstractLockContext implements LockContext {

	private final String name;

	private final List<String> keys;

	private final List<Hold> holds;

	private final boolean acquired;

	private final String releasedAdvice;

	private volatile boolean released;

	/**
	 * Create a new context.
	 * @param name the lock name
	 * @param keys the keys requested
	 * @param holds the keys held, in the order they were locked
	 * @param acquired whether the lock was acquired
	 * @param releasedAdvice what {@link #assertHeld()} advises once released
	 */
	AbstractLockContext(String name, List<String> keys, List<Hold> holds, boolean acquired, String releasedAdvice) {
		this.name = name;
		this.keys = keys;
		this.holds = holds;
		this.acquired = acquired;
		this.releasedAdvice = releasedAdvice;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public List<String> keys() {
		return this.keys;
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
		for (Hold hold : this.holds) {
			token = Math.max(token, hold.fencingToken());
		}
		return token;
	}

	@Override
	public long fencingToken(String key) {
		return hold(key).fencingToken();
	}

	@Override
	public String nodePath() {
		checkOpen();
		if (this.holds.size() != 1) {
			throw new IllegalStateException("Lock '" + this.name + "' covers " + this.holds.size()
					+ " keys, each with its own node; use nodePath(key)");
		}
		return this.holds.get(0).nodePath();
	}

	@Override
	public String nodePath(String key) {
		return hold(key).nodePath();
	}

	@Override
	public boolean isHeld() {
		if (!isAcquired()) {
			return false;
		}
		for (Hold hold : this.holds) {
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
			throw new LockLostException("Lock '" + this.name + "' " + describeKeys() + " was released already; "
					+ this.releasedAdvice, this.name, null);
		}
		for (Hold hold : this.holds) {
			LockState state = hold.state();
			if (state != LockState.HELD) {
				throw new LockLostException(describeLoss(hold, state), this.name, hold.key());
			}
		}
	}

	/**
	 * The keys held, in the order they were locked.
	 */
	final List<Hold> holds() {
		return this.holds;
	}

	/**
	 * Mark the handle released, once.
	 * @return whether it was acquired and not released yet
	 */
	final boolean markReleased() {
		if (!isAcquired()) {
			return false;
		}
		this.released = true;
		return true;
	}

	private Hold hold(String key) {
		checkOpen();
		for (Hold hold : this.holds) {
			if (Objects.equals(hold.key(), key)) {
				return hold;
			}
		}
		throw new IllegalArgumentException("Lock '" + this.name + "' does not cover key '" + KeyEncoder.abbreviate(key)
				+ "'; it covers " + describeKeys());
	}

	private String describeLoss(Hold hold, LockState state) {
		String lock = "Lock '" + this.name + "' key '" + KeyEncoder.abbreviate(hold.key()) + "' ("
				+ hold.describeMode() + ", fencing token " + hold.fencingToken() + ")";
		if (state == LockState.IN_DOUBT && hold.inDoubtAfterPause()) {
			return lock + " is in doubt: this process was silent (paused) for longer than is safe for its ZooKeeper "
					+ "session, which may have expired meanwhile. Do not write what it protects now; it is held again "
					+ "once ZooKeeper confirms the lock node";
		}
		if (state == LockState.IN_DOUBT) {
			return lock + " is in doubt: the ZooKeeper connection is suspended, so another process may hold it. "
					+ "Do not write what it protects now; it is held again if the client reconnects with the same "
					+ "session";
		}
		if (hold.lossReason() == LockLossReason.SHUTDOWN) {
			return lock + " was given up at shutdown: its work did not end within the shutdown's drain timeout "
					+ "(spring.lifecycle.timeout-per-shutdown-phase), so its node was deleted and another process may "
					+ "hold it now. Abandon the work it protects; a resource that checks fencing tokens rejects this "
					+ "holder's late writes";
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

}
