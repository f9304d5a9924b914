package dev.zklock;

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
