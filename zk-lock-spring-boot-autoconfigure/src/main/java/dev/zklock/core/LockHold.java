package dev.zklock.core;

import dev.zklock.annotation.LockMode;

/**
 * One entry into a slot by one handle.
 *
 * @param slotKey the key of the slot in the thread's map
 * @param slot the slot
 * @param mode the mode entered
 */
record LockHold(SlotKey slotKey, LockSlot slot, LockMode mode) {

}
