package dev.zklock.aop;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockContext;
import dev.zklock.LockException;
import dev.zklock.LockLostException;
import dev.zklock.LockRequest;
import dev.zklock.core.AsyncLockHandle;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.HeldCheck;

/**
 * The {@link java.util.concurrent.CompletionStage} part of {@link AsyncLockInvoker}:
 * the call returns a {@link CompletableFuture} at once; once the lock is held the
 * method is invoked on the lock manager's executor, and the lock is released when
 * the stage it returned completes. Cancelling the returned future abandons the wait
 * or cancels the method's stage.
 */
final class CompletionStageLockInvoker {

	private static final Logger logger = LoggerFactory.getLogger(CompletionStageLockInvoker.class);

	private final AsyncLockInvoker invoker;

	CompletionStageLockInvoker(AsyncLockInvoker invoker) {
		this.invoker = invoker;
	}

	Object invoke(MethodInvocation invocation, LockOperation operation) {
		CompletableFuture<Object> result = new CompletableFuture<>();
		Object target = invocation.getThis();
		@Nullable Object[] args = invocation.getArguments();
		LockRequest request;
		CompletableFuture<AsyncLockHandle> pending;
		AsyncLockManager manager;
		try {
			request = operation.createRequest(args, target);
			this.invoker.checkNotNested(operation, request, LockContext.find().orElse(null));
			manager = this.invoker.lockManager();
			AsyncLockManager acquiring = manager;
			pending = DistributedLockInterceptor.whileAcquiring(operation, () -> acquiring.acquire(request));
		}
		catch (RuntimeException ex) {
			result.completeExceptionally(ex);
			return result;
		}
		result.whenComplete((value, ex) -> {
			if (result.isCancelled()) {
				pending.cancel(false);
			}
		});
		pending.whenCompleteAsync((handle, ex) -> {
			try {
				acquired(invocation, operation, request, result, handle, ex);
			}
			catch (Throwable unexpected) {
				result.completeExceptionally(unexpected);
			}
		}, manager.getExecutor());
		return result;
	}

	private void acquired(MethodInvocation invocation, LockOperation operation, LockRequest request,
			CompletableFuture<Object> result, AsyncLockHandle handle, Throwable ex) {
		Object target = invocation.getThis();
		@Nullable Object[] args = invocation.getArguments();
		if (ex != null) {
			Throwable cause = AsyncLockInvoker.unwrap(ex);
			if (cause instanceof CancellationException) {
				return;
			}
			if (AsyncLockInvoker.isFallbackCause(operation, cause)) {
				pipe(() -> this.invoker.fallback(operation, request, target, args, (LockException) cause), result);
			}
			else {
				result.completeExceptionally(cause);
			}
			return;
		}
		if (!handle.isAcquired()) {
			pipe(() -> this.invoker.notAcquired(operation, request, target, args), result);
			return;
		}
		if (result.isDone()) {
			handle.release();
			return;
		}
		Object returned;
		try {
			returned = this.invoker.invokeBody(invocation, operation, handle);
		}
		catch (Throwable bodyFailure) {
			complete(operation, handle, result, null, bodyFailure);
			return;
		}
		if (returned == null) {
			complete(operation, handle, result, null, null);
			return;
		}
		CompletionStage<?> stage = (CompletionStage<?>) returned;
		stage.whenComplete((value, failure) -> complete(operation, handle, result, value, failure));
		result.whenComplete((value, failure) -> {
			if (result.isCancelled()) {
				cancel(stage);
			}
		});
	}

	private void complete(LockOperation operation, AsyncLockHandle handle, CompletableFuture<Object> result,
			@Nullable Object value, @Nullable Throwable error) {
		Throwable failure = (error != null) ? AsyncLockInvoker.unwrap(error) : null;
		LockLostException lost = HeldCheck.lossOf(handle);
		LockLostException toThrow = (failure == null) ? this.invoker.lostAtCompletion(operation, lost) : null;
		handle.release().whenComplete((ignored, releaseFailure) -> {
			if (failure != null) {
				if (lost != null && failure != lost) {
					failure.addSuppressed(lost);
				}
				result.completeExceptionally(failure);
			}
			else if (toThrow != null) {
				result.completeExceptionally(toThrow);
			}
			else {
				result.complete(value);
			}
		});
	}

	private static void cancel(CompletionStage<?> stage) {
		try {
			stage.toCompletableFuture().cancel(true);
		}
		catch (UnsupportedOperationException ex) {
			logger.debug("The returned stage cannot be cancelled; its lock is released when it completes");
		}
	}

	private static void pipe(ThrowingSupplier supplier, CompletableFuture<Object> result) {
		@Nullable Object value;
		try {
			value = supplier.get();
		}
		catch (Throwable ex) {
			result.completeExceptionally(ex);
			return;
		}
		if (value == AsyncLockInvoker.SKIPPED || value == null) {
			result.complete(null);
			return;
		}
		((CompletionStage<?>) value).whenComplete((completed, ex) -> {
			if (ex != null) {
				result.completeExceptionally(AsyncLockInvoker.unwrap(ex));
			}
			else {
				result.complete(completed);
			}
		});
	}

	/**
	 * A supplier that may throw what a method throws.
	 */
	@FunctionalInterface
	interface ThrowingSupplier {

		@Nullable Object get() throws Throwable;

	}

}
