package dev.zklock;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Keeps, per thread, the stack of open locks behind {@link LockContext#current()}.
 * For {@link dev.zklock.LockManager} implementations: push a context when a
 * lock is acquired and remove it when it is released. Applications use
 * {@link LockContext} instead.
 */
public final class LockContextHolder {

	private static final ThreadLocal<Deque<LockContext>> contexts = new ThreadLocal<>();

	private LockContextHolder() {
	}

	/**
	 * Make the context the current thread's innermost one.
	 * @param context the context of a lock the thread just acquired
	 */
	public static void push(LockContext context) {
		Objects.requireNonNull(context, "context must not be null");
		Deque<LockContext> stack = contexts.get();
		if (stack == null) {
			stack = new ArrayDeque<>(4);
			contexts.set(stack);
		}
		stack.push(context);
	}

	/**
	 * Remove the context from the current thread's stack, wherever it is, so that
	 * handles closed out of order leave the others in place.
	 * @param context the context of a lock the thread released
	 */
	public static void remove(LockContext context) {
		Deque<LockContext> stack = contexts.get();
		if (stack == null) {
			return;
		}
		// an empty stack stays, to be reused by the thread's next lock
		stack.removeFirstOccurrence(context);
	}

	static @Nullable LockContext current() {
		Deque<LockContext> stack = contexts.get();
		return (stack != null) ? stack.peek() : null;
	}

}
