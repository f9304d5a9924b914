package dev.zklock.core;

import java.util.List;
import java.util.Objects;

import dev.zklock.LockContextHolder;
import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockLostException;
import dev.zklock.annotation.LockMode;

/**
 * A {@link LockHandle} over the slots one acquisition entered, released in reverse
 * order by the thread that acquired them. While open it is the thread's
 * {@link dev.zklock.LockContext}; its state comes from the registry entries of
 * its holds.
 */
final class CuratorLockHandle implements LockHandle {

	private final CuratorLockManager manager;

	private final String name;

	private final List<String> keys;

	private final LockMode mode;

	private final List<LockHold> holds;

	private final boolean acquired;

	private final Thread owner;

	private volatile boolean closed;

	CuratorLockHandle(CuratorLockManager manager, String name, List<String> keys, LockMode mode, List<LockHold> holds,
			boolean acquired) {
		this.manager = manager;
		this.name = name;
		this.keys = keys;
		this.mode = mode;
		this.holds = holds;
		this.acquired = acquired;
		this.owner = Thread.currentThread();
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
		return this.mode;
	}

	@Override
	public boolean isAcquired() {
		return this.acquired && !this.closed;
	}

	/**
	 * The largest token of the handle's keys: the token of the key locked last.
	 */
	@Override
	public long fencingToken() {
		checkOpen();
		long token = 0;
		for (LockHold hold : this.holds) {
			token = Math.max(token, hold.entry().fencingToken());
		}
		return token;
	}

	@Override
	public long fencingToken(String key) {
		return hold(key).entry().fencingToken();
	}

	@Override
	public String nodePath() {
		checkOpen();
		if (this.holds.size() != 1) {
			throw new IllegalStateException("Lock '" + this.name + "' covers " + this.holds.size()
					+ " keys, each with its own node; use nodePath(key)");
		}
		return this.holds.get(0).entry().node().path();
	}

	@Override
	public String nodePath(String key) {
		return hold(key).entry().node().path();
	}

	private LockHold hold(String key) {
		checkOpen();
		for (LockHold hold : this.holds) {
			if (Objects.equals(hold.slot().key(), key)) {
				return hold;
			}
		}
		throw new IllegalArgumentException("Lock '" + this.name + "' does not cover key '" + KeyEncoder.abbreviate(key)
				+ "'; its keys are " + this.keys);
	}

	@Override
	public boolean isHeld() {
		if (!isAcquired()) {
			return false;
		}
		for (LockHold hold : this.holds) {
			if (hold.entry().state() != LockState.HELD) {
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
		if (this.closed) {
			throw new LockLostException("Lock '" + this.name + "' " + describeKeys()
					+ " was released already; do the guarded work before closing its handle", this.name, null);
		}
		for (LockHold hold : this.holds) {
			LockRegistry.Entry entry = hold.entry();
			LockState state = entry.state();
			if (state != LockState.HELD) {
				throw new LockLostException(describeLoss(entry, state), this.name, entry.key());
			}
		}
	}

	private String describeLoss(LockRegistry.Entry entry, LockState state) {
		String lock = "Lock '" + this.name + "' key '" + KeyEncoder.abbreviate(entry.key()) + "' (" + entry.mode()
				+ ", fencing token " + entry.fencingToken() + ")";
		if (state == LockState.IN_DOUBT) {
			return lock + " is in doubt: the ZooKeeper connection is suspended, so another process may hold it. "
					+ "Do not write what it protects now; it is held again if the client reconnects with the same "
					+ "session";
		}
		return lock + " was lost (" + entry.lossReason() + "): another process may hold it now. Abandon the work it "
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
	public void close() {
		if (!this.acquired || this.closed) {
			return;
		}
		if (Thread.currentThread() != this.owner) {
			throw new LockException("Lock '" + this.name + "' was acquired by thread '" + this.owner.getName()
					+ "' and must be released by it, not by '" + Thread.currentThread().getName()
					+ "'; close the handle in the thread that acquired it");
		}
		this.closed = true;
		LockContextHolder.remove(this);
		this.manager.release(this.name, this.holds);
	}

	@Override
	public String toString() {
		return "LockHandle[name=" + this.name + ", keys=" + this.keys.size() + ", mode=" + this.mode + ", acquired="
				+ isAcquired() + "]";
	}

}
