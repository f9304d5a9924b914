package dev.zklock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;

/**
 * The two ways into the one lock engine, so that one contract test runs through
 * both: the blocking {@link CuratorLockManager} and its asynchronous view.
 */
enum LockApi {

	/**
	 * {@link CuratorLockManager#acquire}: the calling thread waits; an interrupt
	 * abandons the wait.
	 */
	BLOCKING {

		@Override
		Held acquire(CuratorLockManager manager, AsyncLockManager async, LockRequest request) {
			LockHandle handle = manager.acquire(request);
			return new Held(handle.isAcquired(), handle.isAcquired() ? handle.fencingToken() : 0, handle::close);
		}

		@Override
		Waiter startWaiting(CuratorLockManager manager, AsyncLockManager async, LockRequest request,
				Runnable onGrant) {
			CompletableFuture<Boolean> outcome = new CompletableFuture<>();
			Thread thread = new Thread(() -> {
				try (LockHandle handle = manager.acquire(request)) {
					if (handle.isAcquired()) {
						onGrant.run();
					}
					outcome.complete(handle.isAcquired());
				}
				catch (Throwable ex) {
					outcome.completeExceptionally(ex);
				}
			}, "waiter-" + request.name());
			thread.start();
			return new Waiter(outcome, thread::interrupt);
		}

	},

	/**
	 * {@link AsyncLockManager#acquire}: no thread waits; cancelling the future
	 * abandons the wait, and any thread releases.
	 */
	ASYNC {

		@Override
		Held acquire(CuratorLockManager manager, AsyncLockManager async, LockRequest request) throws Exception {
			AsyncLockHandle handle = async.acquire(request).get(60, TimeUnit.SECONDS);
			return new Held(handle.isAcquired(), handle.isAcquired() ? handle.fencingToken() : 0,
					() -> handle.release().get(30, TimeUnit.SECONDS));
		}

		@Override
		Waiter startWaiting(CuratorLockManager manager, AsyncLockManager async, LockRequest request,
				Runnable onGrant) {
			CompletableFuture<AsyncLockHandle> pending = async.acquire(request);
			CompletableFuture<Boolean> outcome = pending.thenCompose((handle) -> {
				if (!handle.isAcquired()) {
					return CompletableFuture.completedFuture(false);
				}
				onGrant.run();
				return handle.release().thenApply((ignored) -> true);
			});
			return new Waiter(outcome, () -> pending.cancel(false));
		}

	};

	/**
	 * Acquire on the calling thread, waiting for the outcome either way.
	 */
	abstract Held acquire(CuratorLockManager manager, AsyncLockManager async, LockRequest request) throws Exception;

	/**
	 * Start an acquisition that runs {@code onGrant} once it holds the lock, then
	 * releases it.
	 */
	abstract Waiter startWaiting(CuratorLockManager manager, AsyncLockManager async, LockRequest request,
			Runnable onGrant);

	/**
	 * The outcome of an acquisition through either API.
	 */
	record Held(boolean acquired, long fencingToken, Release release) implements AutoCloseable {

		@Override
		public void close() throws Exception {
			if (this.acquired) {
				this.release.run();
			}
		}

	}

	/**
	 * An acquisition under way: its outcome (acquired, then released) and how to
	 * abandon it (interrupt or cancel).
	 */
	record Waiter(CompletableFuture<Boolean> outcome, Runnable abandon) {

	}

	@FunctionalInterface
	interface Release {

		void run() throws Exception;

	}

}
