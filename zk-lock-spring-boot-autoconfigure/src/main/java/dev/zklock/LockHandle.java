package dev.zklock;

import java.util.List;

import dev.zklock.annotation.LockMode;

/**
 * The result of an acquisition attempt. When {@link #isAcquired()} is true the
 * lock is held until {@link #close()}; otherwise {@link #close()} does nothing.
 * Meant for try-with-resources. A handle is used by the thread that acquired it.
 */
public interface LockHandle extends AutoCloseable {

	/**
	 * The lock name.
	 * @return the name
	 */
	String name();

	/**
	 * The keys this handle covers, in the order they were locked.
	 * @return the keys
	 */
	List<String> keys();

	/**
	 * The mode the lock was requested in.
	 * @return the mode
	 */
	LockMode mode();

	/**
	 * Whether the lock was acquired within the timeout.
	 * @return whether the lock is held by this handle
	 */
	boolean isAcquired();

	/**
	 * A fencing token for the held lock: the creation zxid of this holder's lock
	 * node. Tokens of successive holders of the same lock strictly increase, so a
	 * resource that remembers the highest token it saw can reject writes from a
	 * holder that lost the lock without noticing.
	 * @return the fencing token
	 * @throws IllegalStateException when the lock is not held
	 * @throws UnsupportedOperationException when the lock does not provide tokens;
	 * zk-lock provides them for {@link LockMode#MUTEX} locks on one key
	 */
	default long fencingToken() {
		throw new UnsupportedOperationException("Lock '" + name() + "' does not provide fencing tokens");
	}

	/**
	 * Release the lock if it is held. Never throws for a lock that is already
	 * released.
	 */
	@Override
	void close();

}
