package dev.zklock.aop;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.FencingToken;
import dev.zklock.LockContext;
import dev.zklock.LockContextHolder;
import dev.zklock.LockException;
import dev.zklock.LockKeyException;
import dev.zklock.LockLostException;
import dev.zklock.LockRequest;
import dev.zklock.LockTimeoutException;
import dev.zklock.LostLockAction;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.core.AsyncLockHandle;
import dev.zklock.core.AsyncLockManager;

/**
 * Locks {@link dev.zklock.annotation.DistributedLock} methods that return an
 * {@link AsyncReturnType}: the call returns at once, the method is invoked on the
 * {@link AsyncLockManager}'s executor once the lock is held, and the lock is
 * released when the work it returned completes, fails or is cancelled. Every
 * error, a bad key included, is delivered through the returned stage or
 * publisher.
 */
final class AsyncLockInvoker {

	/**
	 * Marks a skipped call; the caller turns it into its type's empty value.
	 */
	static final Object SKIPPED = new Object();

	private static final Logger logger = LoggerFactory.getLogger(AsyncLockInvoker.class);

	private final Supplier<AsyncLockManager> lockManager;

	private final Supplier<List<LockInterceptionListener>> listeners;

	private final LostLockAction lostLockAction;

	AsyncLockInvoker(Supplier<AsyncLockManager> lockManager, Supplier<List<LockInterceptionListener>> listeners,
			LostLockAction lostLockAction) {
		this.lockManager = lockManager;
		this.listeners = listeners;
		this.lostLockAction = lostLockAction;
	}

	Object invoke(MethodInvocation invocation, LockOperation operation, AsyncReturnType type) {
		return switch (type) {
			case COMPLETION_STAGE -> invokeStage(invocation, operation);
			case MONO, FLUX, FLOW -> ReactorLockInvoker.invoke(this, invocation, operation, type);
		};
	}

	AsyncLockManager lockManager() {
		AsyncLockManager manager = this.lockManager.get();
		if (manager == null) {
			throw new LockException("No AsyncLockManager bean: asynchronous @DistributedLock methods need one; keep "
					+ "zk-lock's auto-configuration or define an AsyncLockManager bean");
		}
		return manager;
	}

	private Object invokeStage(MethodInvocation invocation, LockOperation operation) {
		CompletableFuture<Object> result = new CompletableFuture<>();
		Object target = invocation.getThis();
		@Nullable Object[] args = invocation.getArguments();
		LockRequest request;
		CompletableFuture<AsyncLockHandle> pending;
		AsyncLockManager manager;
		try {
			request = operation.createRequest(args, target);
			checkNotNested(operation, request, LockContext.find().orElse(null));
			manager = lockManager();
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
				stageAcquired(invocation, operation, request, result, handle, ex);
			}
			catch (Throwable unexpected) {
				result.completeExceptionally(unexpected);
			}
		}, manager.getExecutor());
		return result;
	}

	private void stageAcquired(MethodInvocation invocation, LockOperation operation, LockRequest request,
			CompletableFuture<Object> result, AsyncLockHandle handle, Throwable ex) {
		Object target = invocation.getThis();
		@Nullable Object[] args = invocation.getArguments();
		if (ex != null) {
			Throwable cause = unwrap(ex);
			if (cause instanceof CancellationException) {
				return;
			}
			if (isFallbackCause(operation, cause)) {
				pipe(() -> fallback(operation, request, target, args, (LockException) cause), result);
			}
			else {
				result.completeExceptionally(cause);
			}
			return;
		}
		if (!handle.isAcquired()) {
			pipe(() -> notAcquired(operation, request, target, args), result);
			return;
		}
		if (result.isDone()) {
			handle.release();
			return;
		}
		Object returned;
		try {
			returned = invokeBody(invocation, operation, handle);
		}
		catch (Throwable bodyFailure) {
			completeStage(operation, handle, result, null, bodyFailure);
			return;
		}
		if (returned == null) {
			completeStage(operation, handle, result, null, null);
			return;
		}
		CompletionStage<?> stage = (CompletionStage<?>) returned;
		stage.whenComplete((value, failure) -> completeStage(operation, handle, result, value, failure));
		result.whenComplete((value, failure) -> {
			if (result.isCancelled()) {
				cancel(stage);
			}
		});
	}

	private void completeStage(LockOperation operation, AsyncLockHandle handle, CompletableFuture<Object> result,
			@Nullable Object value, @Nullable Throwable error) {
		Throwable failure = (error != null) ? unwrap(error) : null;
		LockLostException lost = checkHeld(handle);
		LockLostException toThrow = (failure == null) ? lostAtCompletion(operation, lost) : null;
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
		Object value;
		try {
			value = supplier.get();
		}
		catch (Throwable ex) {
			result.completeExceptionally(ex);
			return;
		}
		if (value == SKIPPED || value == null) {
			result.complete(null);
			return;
		}
		((CompletionStage<?>) value).whenComplete((completed, ex) -> {
			if (ex != null) {
				result.completeExceptionally(unwrap(ex));
			}
			else {
				result.complete(completed);
			}
		});
	}

	/**
	 * Invoke the locked method itself, with its fencing token and with the lock as
	 * the thread's {@link LockContext} while the method body runs.
	 */
	@Nullable Object invokeBody(MethodInvocation invocation, LockOperation operation, AsyncLockHandle handle)
			throws Throwable {
		int index = operation.getFencingTokenParameter();
		if (index >= 0) {
			invocation.getArguments()[index] = new FencingToken(handle.fencingToken());
		}
		LockContextHolder.push(handle);
		try {
			return invocation.proceed();
		}
		finally {
			LockContextHolder.remove(handle);
		}
	}

	/**
	 * Fail fast when the caller already holds the lock asked for: asynchronous locks
	 * are not re-entrant, so the call would wait for its own caller.
	 */
	void checkNotNested(LockOperation operation, LockRequest request, @Nullable LockContext context) {
		if (context == null || !context.name().equals(request.name())) {
			return;
		}
		boolean overlaps = (request.keys().isEmpty() && context.keys().isEmpty())
				|| request.keys().stream().anyMatch(context.keys()::contains);
		if (overlaps) {
			throw new LockException(operation.describe() + " asks for lock '" + request.name() + "' " + request.keys()
					+ " while its caller holds that lock already (" + Objects.toString(context.keys()) + "). Locks of "
					+ "asynchronous methods are not re-entrant, so the call would wait for its own caller until the "
					+ "timeout; call the unlocked logic from inside the lock, or lock a different key");
		}
	}

	static boolean isFallbackCause(LockOperation operation, Throwable cause) {
		return operation.hasFallback() && cause instanceof LockException && !(cause instanceof LockKeyException)
				&& !(cause instanceof LockLostException);
	}

	/**
	 * What a call whose lock was not acquired in time returns: the fallback's
	 * result, {@link #SKIPPED}, or a thrown {@link LockTimeoutException}.
	 */
	Object notAcquired(LockOperation operation, LockRequest request, @Nullable Object target, @Nullable Object[] args)
			throws Throwable {
		LockTimeoutException timeout = new LockTimeoutException("Lock '" + request.name() + "' for keys "
				+ request.keys() + " was not acquired within " + describeTimeout(request) + " by "
				+ operation.describe() + "; raise the timeout, or handle contention with onTimeout = SKIP or a "
				+ "fallbackMethod");
		if (operation.hasFallback()) {
			return fallback(operation, request, target, args, timeout);
		}
		if (operation.getOnTimeout() == OnTimeout.SKIP) {
			logger.debug("Lock '{}' for keys {} not acquired within {}; skipped {}", request.name(), request.keys(),
					describeTimeout(request), operation.describe());
			for (LockInterceptionListener listener : this.listeners.get()) {
				listener.skipped(request, operation.getMethod());
			}
			return SKIPPED;
		}
		throw timeout;
	}

	Object fallback(LockOperation operation, LockRequest request, @Nullable Object target, @Nullable Object[] args,
			LockException cause) throws Throwable {
		logger.debug("Lock '{}' for keys {} not acquired ({}); calling the fallback of {}", request.name(),
				request.keys(), cause.getMessage(), operation.describe());
		for (LockInterceptionListener listener : this.listeners.get()) {
			listener.fallback(request, operation.getMethod(), cause);
		}
		return operation.invokeFallback(target, args, cause);
	}

	/**
	 * The exception that replaces the result of work that completed after its lock
	 * was lost, or {@code null} when the lock held or the action only logs.
	 */
	@Nullable LockLostException lostAtCompletion(LockOperation operation, @Nullable LockLostException lost) {
		if (lost == null) {
			return null;
		}
		if (this.lostLockAction == LostLockAction.LOG) {
			logger.warn("The work of {} completed after its lock was no longer held; keeping its result because "
					+ "zk-lock.lost-lock-action=LOG: {}", operation.describe(), lost.getMessage());
			return null;
		}
		return new LockLostException("The work of " + operation.describe() + " completed after its lock was no longer "
				+ "held, so its result is discarded (set zk-lock.lost-lock-action=LOG to only log this). "
				+ lost.getMessage(), lost.getLockName(), lost.getKey());
	}

	static @Nullable LockLostException checkHeld(AsyncLockHandle handle) {
		try {
			handle.assertHeld();
			return null;
		}
		catch (LockLostException ex) {
			return ex;
		}
	}

	static Throwable unwrap(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	private static String describeTimeout(LockRequest request) {
		return (request.timeout() != null) ? request.timeout().toString()
				: "the default timeout (zk-lock.default-timeout)";
	}

	/**
	 * A supplier that may throw what a method throws.
	 */
	@FunctionalInterface
	interface ThrowingSupplier {

		Object get() throws Throwable;

	}

}
