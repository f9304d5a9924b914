package dev.zklock.core;

import java.util.List;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.annotation.LockMode;

/**
 * A {@link LockHandle} over the slots one acquisition entered, released in reverse
 * order by the thread that acquired them.
 */
final class CuratorLockHandle implements LockHandle {

	private final CuratorLockManager manager;

	private final String name;

	private final List<String> keys;

	private final LockMode mode;

	private final List<LockHold> holds;

	private final boolean acquired;

	private final Thread owner;

	private boolean closed;

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

	@Override
	public long fencingToken() {
		if (!isAcquired()) {
			throw new IllegalStateException("Lock '" + this.name + "' is not held, so it has no fencing token");
		}
		if (this.mode != LockMode.MUTEX || this.holds.size() != 1) {
			throw new UnsupportedOperationException("Lock '" + this.name + "' was taken in " + this.mode + " mode on "
					+ this.holds.size() + " key(s); fencing tokens are provided for MUTEX locks on one key");
		}
		LockHold hold = this.holds.get(0);
		try {
			return hold.slot().fencingToken();
		}
		catch (Exception ex) {
			throw new LockException("Could not read the fencing token of lock '" + this.name + "' at "
					+ hold.slot().path() + ": " + ex, ex);
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
		this.manager.release(this.name, this.holds);
	}

	@Override
	public String toString() {
		return "LockHandle[name=" + this.name + ", keys=" + this.keys.size() + ", mode=" + this.mode + ", acquired="
				+ isAcquired() + "]";
	}

}
