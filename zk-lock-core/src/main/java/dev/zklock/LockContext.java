package dev.zklock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.LockMode;

/**
 * The lock the current thread holds innermost: inside a
 * {@code @DistributedLock} method, a
 * {@link LockTemplate#execute(LockRequest, LockCallback) LockTemplate callback}, or
 * while a {@link LockHandle} acquired by the thread is open. Nested locks stack: the
 * innermost one is current, and closing it makes the enclosing one current again.
 * <p>
 * Check {@link #assertHeld()} right before a write that the lock protects, and pass
 * {@link #fencingToken()} to the resource so that it can reject writes from a holder
 * that lost the lock without noticing (a long GC pause, for example).
 */
public interface LockContext {

	/**
	 * The lock name.
	 * @return the name
	 */
	String name();

	/**
	 * The keys of the lock, sorted; empty for a lock without keys.
	 * @return the keys
	 */
	List<String> keys();

	/**
	 * The mode the lock was taken in.
	 * @return the mode
	 */
	LockMode mode();

	/**
	 * The fencing token: the creation zxid of this holder's lock node. For a lock
	 * on several keys, the largest of the keys' tokens, which increases across
	 * holders of the same set of keys; a resource that is also locked with other
	 * key sets must check {@link #fencingToken(String)} of its own key instead.
	 * @return the token, positive
	 * @throws IllegalStateException when the lock is not held any more because it
	 * was released
	 */
	long fencingToken();

	/**
	 * The fencing token of one key of the lock.
	 * @param key one of {@link #keys()}, or {@code null} for a lock without keys
	 * @return the token, positive
	 * @throws IllegalArgumentException when the lock does not cover the key
	 */
	long fencingToken(@Nullable String key);

	/**
	 * The path of this holder's own ZooKeeper node (its lease, for a semaphore). A
	 * ZooKeeper multi-op that checks this path fails as a whole once the lock is
	 * lost, which fences data kept in ZooKeeper itself.
	 * @return the node path
	 * @throws IllegalStateException when the lock was released, or covers several
	 * keys (use {@link #nodePath(String)})
	 */
	String nodePath();

	/**
	 * The path of this holder's own ZooKeeper node for one key.
	 * @param key one of {@link #keys()}, or {@code null} for a lock without keys
	 * @return the node path
	 * @throws IllegalArgumentException when the lock does not cover the key
	 */
	String nodePath(@Nullable String key);

	/**
	 * Whether the lock is still held for sure. {@code false} once it was released,
	 * while the ZooKeeper connection is suspended (the lock is in doubt, and may be
	 * held again after reconnecting with the same session), and for good after the
	 * session was lost.
	 * @return whether the lock is held
	 */
	boolean isHeld();

	/**
	 * Check that the lock is still held, right before a write it protects.
	 * @throws LockLostException naming the lock and key when it is in doubt or lost
	 */
	void assertHeld();

	/**
	 * Extend the hold from inside the work it guards: its
	 * {@link LockRequest#maxHold() maxHold} runs again from now, so a job that learns
	 * it needs longer can say so. A lock taken without a maxHold (and without
	 * {@code zk-lock.max-hold}) gets one. A re-entered lock is one hold: extending it
	 * through any of its contexts extends it. A lock in doubt is extended too: it may
	 * be held again, and if it is lost instead, the loss is told as usual. Extending
	 * needs no call to ZooKeeper.
	 * @param maxHold how long from now the lock may still be held, positive; the
	 * lock's {@code minHold}, if any, must have no longer than that to run
	 * @throws LockLostException when the lock was never acquired, was released,
	 * lost, or reached its maxHold before this call
	 * @throws IllegalArgumentException when {@code maxHold} is zero or negative, or
	 * shorter than what is left of the lock's {@code minHold}
	 * @throws NullPointerException when {@code maxHold} is {@code null}
	 * @throws UnsupportedOperationException when the lock cannot be extended, such
	 * as a {@code @Leader} method's leadership, which has no maxHold
	 */
	default void extendMaxHold(Duration maxHold) {
		throw new UnsupportedOperationException("Lock '" + name() + "' cannot extend its maxHold");
	}

	/**
	 * The lock the current thread holds innermost.
	 * @return the context
	 * @throws IllegalStateException when the thread holds no lock
	 */
	static LockContext current() {
		LockContext context = LockContextHolder.current();
		if (context == null) {
			throw new IllegalStateException("Thread '" + Thread.currentThread().getName() + "' holds no lock: "
					+ "LockContext.current() works inside a @DistributedLock method, a LockTemplate callback, or "
					+ "while a LockHandle acquired by this thread is open; use LockContext.find() when there may be "
					+ "none");
		}
		return context;
	}

	/**
	 * The lock the current thread holds innermost, if any.
	 * @return the context, or empty outside any lock
	 */
	static Optional<LockContext> find() {
		return Optional.ofNullable(LockContextHolder.current());
	}

}
