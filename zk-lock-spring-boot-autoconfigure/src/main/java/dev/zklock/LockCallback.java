package dev.zklock;

/**
 * Work run by {@link LockTemplate#execute(LockRequest, LockCallback)} while the
 * lock is held.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface LockCallback<T> {

	/**
	 * Run the work.
	 * @return the result
	 * @throws Throwable any failure, passed on to the caller unchanged (checked
	 * ones wrapped in {@link java.lang.reflect.UndeclaredThrowableException})
	 */
	T doWithLock() throws Throwable;

}
