package dev.zklock;

import java.util.Objects;

/**
 * Thrown to the one waiter that zk-lock chose to end a deadlock: its wait was part
 * of a cycle of waits across instances, in which each holds what the next waits
 * for, and as the newest wait of the cycle it was failed, its node removed, so
 * that the others go on. Not a timeout: release what the caller still holds, at
 * its outermost level, rather than trying again inside the locks of the cycle.
 */
public class LockDeadlockException extends LockException {

	private static final long serialVersionUID = 1L;

	private final LockDeadlock deadlock;

	/**
	 * Create a new instance, its message naming every edge of the cycle.
	 * @param deadlock the deadlock this wait ended
	 */
	public LockDeadlockException(LockDeadlock deadlock) {
		super(message(Objects.requireNonNull(deadlock, "deadlock must not be null")));
		this.deadlock = deadlock;
	}

	/**
	 * The deadlock this wait ended.
	 * @return the deadlock, its victim and edges
	 */
	public LockDeadlock getDeadlock() {
		return this.deadlock;
	}

	private static String message(LockDeadlock deadlock) {
		return "Deadlock detected: this wait for lock " + deadlock.victimWaitsFor().describe()
				+ " was chosen to end it, as the newest wait of the cycle; its node was removed and the other waits "
				+ "go on.\n" + deadlock.describe() + "\nRelease the locks this thread still holds (leaving their blocks "
				+ "does) so that the others are granted; take nested locks in one global order to avoid the cycle.";
	}

}
