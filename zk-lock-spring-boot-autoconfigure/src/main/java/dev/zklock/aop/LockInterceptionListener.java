package dev.zklock.aop;

import java.lang.reflect.Method;

import dev.zklock.LockException;
import dev.zklock.LockRequest;

/**
 * Told what {@link DistributedLockInterceptor} did when a lock was not acquired,
 * for example to count skipped calls in metrics. Every bean of this type is
 * called, in order. Implementations must be fast and must not throw.
 */
public interface LockInterceptionListener {

	/**
	 * The lock was not acquired in time and the call was skipped
	 * ({@link dev.zklock.annotation.OnTimeout#SKIP}).
	 * @param request the request that was not granted
	 * @param method the annotated method that did not run
	 */
	default void skipped(LockRequest request, Method method) {
	}

	/**
	 * The lock was not acquired and the fallback method is about to be called.
	 * @param request the request that was not granted
	 * @param method the annotated method that did not run
	 * @param cause why the lock was not acquired
	 */
	default void fallback(LockRequest request, Method method, LockException cause) {
	}

}
