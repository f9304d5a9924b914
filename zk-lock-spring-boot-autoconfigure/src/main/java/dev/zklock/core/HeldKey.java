package dev.zklock.core;

import dev.zklock.LockLossReason;

/**
 * One key held by a lock handle, as {@link AbstractLockContext} reads it.
 */
interface HeldKey {

	/**
	 * The key, or {@code null} for a lock without keys.
	 */
	String key();

	/**
	 * Whether the key is held, in doubt, lost or being released.
	 */
	LockState state();

	/**
	 * The creation zxid of the key's lock node.
	 */
	long fencingToken();

	/**
	 * The path of the key's lock node.
	 */
	String nodePath();

	/**
	 * Why the key was lost, or {@code null} while it is not.
	 */
	LockLossReason lossReason();

	/**
	 * The mode as loss messages name it.
	 */
	String describeMode();

}
