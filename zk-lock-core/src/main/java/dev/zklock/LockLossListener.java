package dev.zklock;

/**
 * Told when a lock held by this process is lost: its session ended or its node
 * disappeared while a thread still held it. Called on zk-lock's connection thread,
 * in registration order; implementations must be quick and must not throw.
 */
@FunctionalInterface
public interface LockLossListener {

	/**
	 * A held lock was lost.
	 * @param lock the lock, in state {@link LockState#LOST}, with the name of the
	 * thread that held it and its fencing token
	 * @param reason why it was lost
	 */
	void lockLost(LockInfo lock, LockLossReason reason);

}
