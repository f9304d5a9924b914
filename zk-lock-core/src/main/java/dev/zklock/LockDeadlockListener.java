package dev.zklock;

/**
 * Told about every deadlock that this instance ended by failing its own wait, the
 * victim's, after the victim's node was removed: for metrics and audit.
 */
@FunctionalInterface
public interface LockDeadlockListener {

	/**
	 * A deadlock was ended.
	 * @param deadlock the cycle and its victim
	 */
	void deadlockResolved(LockDeadlock deadlock);

}
