package dev.zklock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.zklock.LockHandle;
import dev.zklock.LockManager;
import dev.zklock.LockRequest;

/**
 * Holds a lock in its own thread until {@link #close()}.
 */
final class BackgroundHolder implements AutoCloseable {

	private final CountDownLatch release = new CountDownLatch(1);

	private final CompletableFuture<Boolean> acquired = new CompletableFuture<>();

	private final CompletableFuture<Void> done = new CompletableFuture<>();

	private final Thread thread;

	private BackgroundHolder(LockManager manager, LockRequest request) {
		this.thread = new Thread(() -> {
			try (LockHandle handle = manager.acquire(request)) {
				this.acquired.complete(handle.isAcquired());
				this.release.await();
			}
			catch (Throwable ex) {
				this.acquired.completeExceptionally(ex);
				this.done.completeExceptionally(ex);
				return;
			}
			this.done.complete(null);
		}, "holder-" + request.name());
		this.thread.start();
	}

	/**
	 * Start a thread that acquires the lock and holds it; waits until it holds it.
	 */
	static BackgroundHolder hold(LockManager manager, LockRequest request) throws Exception {
		BackgroundHolder holder = new BackgroundHolder(manager, request);
		if (!holder.acquired.get(30, TimeUnit.SECONDS)) {
			holder.close();
			throw new IllegalStateException("Background holder could not acquire " + request);
		}
		return holder;
	}

	Thread thread() {
		return this.thread;
	}

	@Override
	public void close() throws Exception {
		this.release.countDown();
		this.done.get(30, TimeUnit.SECONDS);
	}

}
