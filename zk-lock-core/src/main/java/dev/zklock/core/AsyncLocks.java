package dev.zklock.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockException;
import dev.zklock.LockRequest;

/**
 * The asynchronous lock path of an {@link AsyncLockManager}: an acquisition of the
 * sorted keys with a timer of the engine's for its deadline, a cancellation of the
 * caller's future passed on to it, the hold timers of what it took, the
 * instrumentation told, and every result delivered on the view's executor, never
 * on Curator's event thread. A result the executor refuses is delivered on a
 * thread of the view's own instead, a lock acquired for it released, not handed
 * to work that cannot run.
 */
final class AsyncLocks {

	// lock lifecycle is logged under the manager users know and configure
	private static final Logger logger = LoggerFactory.getLogger(CuratorLockManager.class);

	private static final long FALLBACK_KEEP_ALIVE_SECONDS = 10;

	private final LockEngine engine;

	private final AsyncLockManager manager;

	private final Executor executor;

	// What the executor refused runs here, never on the caller's thread, which may be Curator's event thread;
	// it never refuses, and has no thread while idle
	private final ThreadPoolExecutor fallback;

	AsyncLocks(LockEngine engine, AsyncLockManager manager, Executor executor) {
		this.engine = engine;
		this.manager = manager;
		this.executor = executor;
		this.fallback = new ThreadPoolExecutor(0, 1, FALLBACK_KEEP_ALIVE_SECONDS, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), (task) -> {
					Thread thread = new Thread(task, "zk-lock-async-fallback");
					thread.setDaemon(true);
					return thread;
				});
	}

	/**
	 * Acquire the request's keys, on the executor, and complete the result with a
	 * handle there; a result cancelled meanwhile cancels the acquisition. The
	 * result completes whatever happens, exceptionally when the acquisition could
	 * not even start.
	 * @param ownerData the owner data computed on the caller's thread
	 */
	void start(LockRequest request, byte @Nullable [] ownerData, Instrumentations.Acquisition instrumentation,
			CompletableFuture<AsyncLockHandle> result) {
		List<String> keys = List.copyOf(new TreeSet<>(request.keys()));
		Acquisition acquisition;
		try {
			List<String> lockKeys = keys.isEmpty() ? Collections.singletonList(null) : keys;
			List<Acquisition.Target> targets = new ArrayList<>(lockKeys.size());
			for (String key : lockKeys) {
				targets.add(new Acquisition.Target(key, this.engine.pathFor(request.name(), key), null, 0));
			}
			acquisition = this.engine.acquireFor(ownerData, request.name(), request.mode(), request.permits(),
					targets, request.timeout(), request.usesLocalHandoff());
		}
		catch (RuntimeException ex) {
			// nothing is held and the engine took back what it sent: only the caller is left to tell
			LockException failure = AsyncLockManager.startFailure(request, ex);
			instrumentation.failed(failure);
			result.completeExceptionally(failure);
			return;
		}
		acquisition.armTimer();
		result.whenComplete((handle, ex) -> {
			if (result.isCancelled() && acquisition.cancel()) {
				instrumentation.failed(ex);
			}
		});
		acquisition.result().whenComplete((holds, ex) -> {
			try {
				this.executor.execute(() -> deliver(request, keys, holds, ex, instrumentation, result));
			}
			catch (RejectedExecutionException rejected) {
				this.fallback.execute(() -> refused(request, holds, ex, instrumentation, result, rejected));
			}
		});
	}

	private void deliver(LockRequest request, List<String> keys, @Nullable List<Hold> holds, @Nullable Throwable ex,
			Instrumentations.Acquisition instrumentation, CompletableFuture<AsyncLockHandle> result) {
		if (ex != null) {
			fail(ex, instrumentation, result);
			return;
		}
		AsyncLockHandle handle = new AsyncLockHandle(this.manager, request.name(), keys, request.mode(),
				(holds != null) ? holds : List.of(), holds != null, instrumentation);
		if (holds == null) {
			instrumentation.notAcquired();
			result.complete(handle);
			return;
		}
		this.engine.holdTimers().start(holds, request);
		// reported before the caller can release it
		instrumentation.acquired(handle);
		if (!result.complete(handle)) {
			handle.release();
		}
	}

	// The executor refused the delivery: a lock taken goes back, as the work it was for cannot run there
	private void refused(LockRequest request, @Nullable List<Hold> holds, @Nullable Throwable ex,
			Instrumentations.Acquisition instrumentation, CompletableFuture<AsyncLockHandle> result,
			RejectedExecutionException rejected) {
		if (ex != null) {
			fail(ex, instrumentation, result);
			return;
		}
		if (holds != null) {
			this.engine.release(holds);
		}
		logger.warn("Lock '{}' keys {}: the executor refused to run what follows the acquisition ({}); {}",
				request.name(), request.keys().stream().map(KeyEncoder::abbreviate).toList(), rejected.toString(),
				(holds != null) ? "the lock was released" : "it was not acquired");
		LockException failure = new LockException("Lock '" + request.name() + "' could not be handed over: the "
				+ "asynchronous lock manager's executor refused to run what follows (" + rejected + "), so "
				+ ((holds != null) ? "the lock was released again" : "nothing is held") + ". Give the manager an "
				+ "executor that accepts the work, or stop acquiring once it is shut down", rejected);
		instrumentation.failed(failure);
		result.completeExceptionally(failure);
	}

	private static void fail(Throwable ex, Instrumentations.Acquisition instrumentation,
			CompletableFuture<AsyncLockHandle> result) {
		Throwable cause = LockEngine.unwrap(ex);
		if (!(cause instanceof CancellationException)) {
			instrumentation.failed(cause);
			result.completeExceptionally(cause);
		}
	}

	/**
	 * Release a handle's holds, telling its instrumentation, and complete on the
	 * executor, or on a thread of the view's own when the executor refuses.
	 */
	CompletableFuture<Void> release(AsyncLockHandle handle) {
		CompletableFuture<Void> released;
		try {
			released = this.engine.release(handle.holds());
		}
		catch (RuntimeException ex) {
			released = CompletableFuture.failedFuture(ex);
		}
		CompletableFuture<Void> lingering = handle.lingering();
		if (lingering != null) {
			handle.instrumentation().releasedLingering(lingering);
		}
		else {
			handle.instrumentation().released();
		}
		CompletableFuture<Void> result = new CompletableFuture<>();
		released.whenComplete((ignored, ex) -> {
			Runnable completion = () -> {
				if (ex != null) {
					Throwable cause = LockEngine.unwrap(ex);
					result.completeExceptionally((cause instanceof LockException) ? cause
							: new LockException("Could not release lock '" + handle.name() + "': " + cause, cause));
				}
				else {
					result.complete(null);
				}
			};
			try {
				this.executor.execute(completion);
			}
			catch (RejectedExecutionException rejected) {
				this.fallback.execute(completion);
			}
		});
		return result;
	}

}
