package dev.zklock.core;

import java.util.concurrent.CompletionStage;

import dev.zklock.LockContext;
import dev.zklock.LockRequest;

/**
 * Observes the acquisitions made through an {@link InstrumentedLockManager} and an
 * {@link AsyncLockManager}, for metrics and tracing. For a synchronous lock
 * ({@link #start}) every callback runs on the thread that acquires, and later
 * releases, the lock; for an asynchronous one ({@link #startAsync}) the callbacks
 * may run on any thread. Implementations must be fast; an exception they throw is
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
	 * An asynchronous acquisition is about to start on the calling thread. Its
	 * outcome and its release are reported on whatever thread completes them, and
	 * the guarded work runs on other threads again, so an implementation must not
	 * tie state to the calling thread (no thread-local scope opened here and closed
	 * on release). Delegates to {@link #start} by default.
	 * @param request what is asked for
	 * @return the callbacks for this acquisition, never {@code null}
	 */
	default Acquisition startAsync(LockRequest request) {
		return start(request);
	}

	/**
	 * The outcome of one acquisition: exactly one of {@link #acquired},
	 * {@link #notAcquired} and {@link #failed} is called, and {@link #released}
	 * follows {@link #acquired} once the handle is closed.
	 */
	interface Acquisition {

		/**
		 * The lock was acquired.
		 * @param lock the lock the caller gets: a {@link dev.zklock.LockHandle}, or an
		 * {@link AsyncLockHandle} for an asynchronous acquisition
		 */
		default void acquired(LockContext lock) {
		}

		/**
		 * The lock was not acquired within the timeout.
		 */
		default void notAcquired() {
		}

		/**
		 * The acquisition failed: ZooKeeper failed, or the thread was interrupted
		 * (its interrupt flag is set then), or an asynchronous acquisition was
		 * cancelled (a {@link java.util.concurrent.CancellationException}).
		 * @param failure what the manager threw or completed the acquisition with
		 */
		default void failed(Throwable failure) {
		}

		/**
		 * The handle was closed (or an asynchronous handle released) and the lock is
		 * no longer held, whether or not ZooKeeper confirmed the release.
		 */
		default void released() {
		}

		/**
		 * The handle was closed (or an asynchronous handle released) before the
		 * request's {@code minHold} had passed: the guarded work is done, but the lock
		 * stays held until {@code holdEnded} completes (when the shortest hold has
		 * passed or the session ended). Called instead of {@link #released()}, on the
		 * same thread; by default it calls {@link #released()} at once.
		 * @param holdEnded completes, on another thread, once the lock is no longer
		 * held
		 */
		default void releasedLingering(CompletionStage<Void> holdEnded) {
			released();
		}

	}

}
