package dev.zklock.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import dev.zklock.LockRequest;

/**
 * The asynchronous lock path of an {@link AsyncLockManager}: an acquisition of the
 * sorted keys with a timer of the engine's for its deadline, a cancellation of the
 * caller's future passed on to it, the hold timers of what it took, the
 * instrumentation told, and every result delivered on the view's executor, never
 * on Curator's event thread.
 */
final class AsyncLocks {

	private final LockEngine engine;

	private final AsyncLockManager manager;

	private final Executor executor;

	AsyncLocks(LockEngine engine, AsyncLockManager manager, Executor executor) {
		this.engine = engine;
		this.manager = manager;
		this.executor = executor;
	}

	/**
	 * Acquire the request's keys, on the executor, and complete the result with a
	 * handle there; a result cancelled meanwhile cancels the acquisition.
	 */
	void start(LockRequest request, Instrumentations.Acquisition instrumentation,
			CompletableFuture<AsyncLockHandle> result) {
		List<String> keys = List.copyOf(new TreeSet<>(request.keys()));
		List<String> lockKeys = keys.isEmpty() ? Collections.singletonList(null) : keys;
		List<Acquisition.Target> targets = new ArrayList<>(lockKeys.size());
		for (String key : lockKeys) {
			targets.add(new Acquisition.Target(key, this.engine.pathFor(request.name(), key), null, 0));
		}
		Acquisition acquisition = this.engine.acquire(request.name(), request.mode(), request.permits(), targets,
				request.timeout(), null, request.usesLocalHandoff());
		acquisition.armTimer();
		result.whenComplete((handle, ex) -> {
			if (result.isCancelled() && acquisition.cancel()) {
				instrumentation.failed(ex);
			}
		});
		acquisition.result().whenComplete((holds, ex) -> deliver(() -> {
			if (ex != null) {
				Throwable cause = LockEngine.unwrap(ex);
				if (!(cause instanceof CancellationException)) {
					instrumentation.failed(cause);
					result.completeExceptionally(cause);
				}
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
		}));
	}

	/**
	 * Release a handle's holds, telling its instrumentation, and complete on the
	 * executor.
	 */
	CompletableFuture<Void> release(AsyncLockHandle handle) {
		CompletableFuture<Void> released = this.engine.release(handle.holds());
		CompletableFuture<Void> lingering = handle.lingering();
		if (lingering != null) {
			handle.instrumentation().releasedLingering(lingering);
		}
		else {
			handle.instrumentation().released();
		}
		CompletableFuture<Void> result = new CompletableFuture<>();
		released.whenComplete((ignored, ex) -> deliver(() -> {
			if (ex != null) {
				result.completeExceptionally(LockEngine.unwrap(ex));
			}
			else {
				result.complete(null);
			}
		}));
		return result;
	}

	private void deliver(Runnable task) {
		try {
			this.executor.execute(task);
		}
		catch (RejectedExecutionException ex) {
			task.run();
		}
	}

}
