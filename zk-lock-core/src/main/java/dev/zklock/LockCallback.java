package dev.zklock;

import org.jspecify.annotations.Nullable;

/**
 * Work run by {@link LockTemplate#execute(LockRequest, LockCallback)} while the
 * lock is held.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface LockCallback<T extends @Nullable Object> {

	/**
	 * Run the work.
	 * @return the result
	 * @throws Throwable any failure, passed on to the caller unchanged (checked
	 * ones wrapped in {@link java.lang.reflect.UndeclaredThrowableException})
	 */
	T doWithLock() throws Throwable;

}
