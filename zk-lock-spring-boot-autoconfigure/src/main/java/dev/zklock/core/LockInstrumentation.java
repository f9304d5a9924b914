package dev.zklock.core;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;

/**
 * Observes the acquisitions made through an {@link InstrumentedLockManager}, for
 * metrics and tracing. Every callback runs on the thread that acquires, and later
 * releases, the lock. Implementations must be fast; an exception they throw is
 * logged and never reaches the caller.
 */
public interface LockInstrumentation {

	/**
	 * The calling thread is about to ask for a lock.
	 * @param request what it asks for
	 * @return the callbacks for this acquisition, never {@code null}
	 */
	Acquisition start(LockRequest request);

	/**
	 * The outcome of one acquisition: exactly one of {@link #acquired},
	 * {@link #notAcquired} and {@link #failed} is called, and {@link #released}
	 * follows {@link #acquired} once the handle is closed.
	 */
	interface Acquisition {

		/**
		 * The lock was acquired.
		 * @param handle the handle the caller gets
		 */
		default void acquired(LockHandle handle) {
		}

		/**
		 * The lock was not acquired within the timeout.
		 */
		default void notAcquired() {
		}

		/**
		 * The acquisition failed: ZooKeeper failed, or the thread was interrupted
		 * (its interrupt flag is set then).
		 * @param failure what the manager threw
		 */
		default void failed(Throwable failure) {
		}

		/**
		 * The handle was closed and the lock is no longer held, whether or not
		 * ZooKeeper confirmed the release.
		 */
		default void released() {
		}

	}

}
