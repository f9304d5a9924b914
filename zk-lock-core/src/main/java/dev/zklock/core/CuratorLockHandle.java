package dev.zklock.core;

import java.util.List;

import dev.zklock.LockContextHolder;
import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.LockRegistry.Hold;

/**
 * A {@link LockHandle} over the slots one blocking acquisition entered, released
 * in reverse order by the thread that acquired them. While open it is the
 * thread's {@link dev.zklock.LockContext}; its state comes from the registry
 * entries of its holds.
 */
final class CuratorLockHandle extends AbstractLockContext implements LockHandle {

	private final CuratorLockManager manager;

	private final LockMode mode;

	private final List<LockSlot.Key> slotKeys;

	private final Thread owner;

	CuratorLockHandle(CuratorLockManager manager, String name, List<String> keys, LockMode mode, List<Hold> holds,
			List<LockSlot.Key> slotKeys, boolean acquired) {
		super(name, keys, holds, acquired, "do the guarded work before closing its handle");
		this.manager = manager;
		this.mode = mode;
		this.slotKeys = slotKeys;
		this.owner = Thread.currentThread();
	}

	@Override
	public LockMode mode() {
		return this.mode;
	}

	@Override
	HoldTimers holdTimers() {
		return this.manager.holdTimers();
	}

	@Override
	public void close() {
		if (!isAcquired()) {
			return;
		}
		if (Thread.currentThread() != this.owner) {
			throw new LockException("Lock '" + name() + "' was acquired by thread '" + this.owner.getName()
					+ "' and must be released by it, not by '" + Thread.currentThread().getName()
					+ "'; close the handle in the thread that acquired it");
		}
		if (!markReleased()) {
			return;
		}
		LockContextHolder.remove(this);
		this.manager.release(this.mode, this.slotKeys);
	}

	@Override
	public String toString() {
		return "LockHandle[name=" + name() + ", keys=" + keys().size() + ", mode=" + this.mode + ", acquired="
				+ isAcquired() + "]";
	}

}
