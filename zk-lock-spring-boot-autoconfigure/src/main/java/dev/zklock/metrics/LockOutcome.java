package dev.zklock.metrics;

import java.util.Locale;
import java.util.concurrent.CancellationException;

import dev.zklock.LockDeadlockException;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.aop.DistributedLockInterceptor;
import dev.zklock.aop.LockOperation;

/**
 * What became of an acquisition, as told in the {@code outcome} tag.
 */
public enum LockOutcome {

	/**
	 * The lock was acquired.
	 */
	ACQUIRED,

	/**
	 * The lock was not acquired within the timeout.
	 */
	TIMEOUT,

	/**
	 * The lock was not acquired within the timeout and the annotated method was
	 * skipped ({@link OnTimeout#SKIP}).
	 */
	SKIPPED,

	/**
	 * ZooKeeper failed.
	 */
	ERROR,

	/**
	 * The thread was interrupted while waiting, or an asynchronous acquisition was
	 * cancelled (its future cancelled, or its subscription disposed) while waiting.
	 */
	INTERRUPTED,

	/**
	 * The wait was the victim of a deadlock: it failed with a
	 * {@link LockDeadlockException} so that the other waits of its cycle go on.
	 */
	DEADLOCK;

	private final String tag = name().toLowerCase(Locale.ROOT);

	/**
	 * The tag value.
	 * @return the outcome in lower case
	 */
	public String tag() {
		return this.tag;
	}

	/**
	 * The outcome of an acquisition that timed out on the current thread.
	 * @param name the lock name
	 * @return {@link #SKIPPED} when an interceptor skips the call, else
	 * {@link #TIMEOUT}
	 */
	static LockOutcome notAcquired(String name) {
		// Mirrors DistributedLockInterceptor: without a fallback, SKIP skips the call
		LockOperation operation = DistributedLockInterceptor.currentOperation();
		boolean skipped = operation != null && operation.getName().equals(name) && !operation.hasFallback()
				&& operation.getOnTimeout() == OnTimeout.SKIP;
		return skipped ? SKIPPED : TIMEOUT;
	}

	/**
	 * The outcome of an acquisition that failed on the current thread.
	 * @param failure what the manager threw
	 * @return {@link #INTERRUPTED}, {@link #DEADLOCK} or {@link #ERROR}
	 */
	static LockOutcome failed(Throwable failure) {
		if (Thread.currentThread().isInterrupted()) {
			return INTERRUPTED;
		}
		return failedAsync(failure);
	}

	/**
	 * The outcome of an asynchronous acquisition that failed, on whatever thread
	 * reports it.
	 * @param failure what the acquisition completed with
	 * @return {@link #INTERRUPTED} when it was cancelled or interrupted,
	 * {@link #DEADLOCK} when it was a deadlock's victim, else {@link #ERROR}
	 */
	static LockOutcome failedAsync(Throwable failure) {
		for (Throwable current = failure; current != null; current = current.getCause()) {
			if (current instanceof InterruptedException || current instanceof CancellationException) {
				return INTERRUPTED;
			}
			if (current instanceof LockDeadlockException) {
				return DEADLOCK;
			}
		}
		return ERROR;
	}

}
