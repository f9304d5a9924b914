package dev.zklock;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.LockMode;

/**
 * The result of an acquisition attempt. When {@link #isAcquired()} is true the
 * lock is held until {@link #close()}; otherwise {@link #close()} does nothing.
 * Meant for try-with-resources. A handle is used by the thread that acquired it.
 * While it is open, an acquired handle is also the thread's
 * {@link LockContext#current() current lock context} (unless a lock taken later is
 * open too).
 */
public interface LockHandle extends LockContext, AutoCloseable {

	/**
	 * The lock name.
	 * @return the name
	 */
	@Override
	String name();

	/**
	 * The keys this handle covers, in the order they were locked.
	 * @return the keys
	 */
	@Override
	List<String> keys();

	/**
	 * The mode the lock was requested in.
	 * @return the mode
	 */
	@Override
	LockMode mode();

	/**
	 * Whether the lock was acquired within the timeout and the handle is not closed
	 * yet. Unlike {@link #isHeld()}, this stays true while the lock is in doubt or
	 * lost, until the handle is closed.
	 * @return whether this handle acquired the lock and is open
	 */
	boolean isAcquired();

	/**
	 * A fencing token for the held lock: the creation zxid of this holder's lock
	 * node. Tokens of successive holders of the same lock strictly increase, so a
	 * resource that remembers the highest token it saw can reject writes from a
	 * holder that lost the lock without noticing.
	 * @return the fencing token
	 * @throws IllegalStateException when the lock is not held
	 * @throws UnsupportedOperationException when the lock does not provide tokens
	 */
	@Override
	default long fencingToken() {
		throw new UnsupportedOperationException("Lock '" + name() + "' does not provide fencing tokens");
	}

	/**
	 * The fencing token of one key; by default the only token of a lock on at most
	 * one key.
	 * @param key the key
	 * @return the token
	 */
	@Override
	default long fencingToken(@Nullable String key) {
		if (keys().size() > 1) {
			throw new UnsupportedOperationException("Lock '" + name() + "' does not provide a token per key");
		}
		return fencingToken();
	}

	/**
	 * The path of this holder's node; by default not exposed.
	 * @return the node path
	 */
	@Override
	default String nodePath() {
		throw new UnsupportedOperationException("Lock '" + name() + "' does not expose its node");
	}

	/**
	 * The path of this holder's node for one key; by default not exposed.
	 * @param key the key
	 * @return the node path
	 */
	@Override
	default String nodePath(@Nullable String key) {
		throw new UnsupportedOperationException("Lock '" + name() + "' does not expose its node");
	}

	/**
	 * Whether the lock is held for sure; by default whether it was acquired and is
	 * not closed.
	 * @return whether the lock is held
	 */
	@Override
	default boolean isHeld() {
		return isAcquired();
	}

	/**
	 * Check that the lock is held.
	 * @throws LockLostException when it is not
	 */
	@Override
	default void assertHeld() {
		if (!isHeld()) {
			throw new LockLostException("Lock '" + name() + "' is not held", name(), null);
		}
	}

	/**
	 * Extend the hold: its {@link LockRequest#maxHold() maxHold} runs again from
	 * now, on the same timer as the one set at the grant, so a job that learns it
	 * needs longer can say so. A lock taken without a maxHold (and without
	 * {@code zk-lock.max-hold}) gets one. A re-entered lock is one hold: extending
	 * any of its handles extends it. A READ taken inside this thread's WRITE is a
	 * hold of its own, extended through its own handle. A lock in doubt is extended
	 * too: it may be held again, and if it is lost instead, the loss is told as
	 * usual.
	 * @param maxHold how long from now the lock may still be held, positive; the
	 * lock's {@code minHold}, if any, must have no longer than that to run
	 * @throws LockLostException when the lock was never acquired, was released,
	 * lost, or reached its maxHold before this call
	 * @throws IllegalArgumentException when {@code maxHold} is zero or negative, or
	 * shorter than what is left of the lock's {@code minHold}
	 * @throws NullPointerException when {@code maxHold} is {@code null}
	 * @throws UnsupportedOperationException when the lock cannot be extended
	 */
	@Override
	default void extendMaxHold(Duration maxHold) {
		throw new UnsupportedOperationException("Lock '" + name() + "' cannot extend its maxHold");
	}

	/**
	 * Release the lock if it is held. Never throws for a lock that is already
	 * released.
	 */
	@Override
	void close();

}
