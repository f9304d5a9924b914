package dev.zklock.core;

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
record LockHold(SlotKey slotKey, LockSlot slot, LockMode mode, LockRegistry.Entry entry) {

}
