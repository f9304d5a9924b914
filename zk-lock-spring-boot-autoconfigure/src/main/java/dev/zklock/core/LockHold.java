package dev.zklock.core;

import dev.zklock.LockLossReason;
import dev.zklock.annotation.LockMode;

/**
 * One entry into a slot by one handle.
 *
 * @param slotKey the key of the slot in the thread's map
 * @param slot the slot
 * @param mode the mode entered
 * @param entry the registry entry of the outermost acquisition of the slot and
 * mode, shared by re-entrant holds
 */
record LockHold(SlotKey slotKey, LockSlot slot, LockMode mode, LockRegistry.Entry entry) implements HeldKey {

	@Override
	public String key() {
		return this.slot.key();
	}

	@Override
	public LockState state() {
		return this.entry.state();
	}

	@Override
	public long fencingToken() {
		return this.entry.fencingToken();
	}

	@Override
	public String nodePath() {
		return this.entry.node().path();
	}

	@Override
	public LockLossReason lossReason() {
		return this.entry.lossReason();
	}

	@Override
	public String describeMode() {
		return this.entry.mode().toString();
	}

}
