package dev.zklock.aop;

import java.util.Objects;
import java.util.concurrent.CompletionException;
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
import dev.zklock.core.AsyncLockHandle;
import dev.zklock.core.AsyncLockManager;

/**
 * Locks {@link dev.zklock.annotation.DistributedLock} methods that return an
 * {@link AsyncReturnType}: the call returns at once, the method is invoked on the
 * {@link AsyncLockManager}'s executor once the lock is held, and the lock is
 * released when the work it returned completes, fails or is cancelled. Every
 * error, a bad key included, is delivered through the returned stage or
 * publisher. This class picks the invoker of the return type
 * ({@link CompletionStageLockInvoker}, {@link ReactorLockInvoker}) and holds the
 * steps they share.
 */
final class AsyncLockInvoker {

	/**
	 * Marks a skipped call; the caller turns it into its type's empty value.
	 */
	static final Object SKIPPED = new Object();

	private static final Logger logger = LoggerFactory.getLogger(AsyncLockInvoker.class);

	private final Supplier<AsyncLockManager> lockManager;

	private final NotAcquiredHandler notAcquired;

	private final LostLockAction lostLockAction;

	private final CompletionStageLockInvoker stages = new CompletionStageLockInvoker(this);

	AsyncLockInvoker(Supplier<AsyncLockManager> lockManager, NotAcquiredHandler notAcquired,
			LostLockAction lostLockAction) {
		this.lockManager = lockManager;
		this.notAcquired = notAcquired;
		this.lostLockAction = lostLockAction;
	}

	Object invoke(MethodInvocation invocation, LockOperation operation, AsyncReturnType type) {
		return switch (type) {
			case COMPLETION_STAGE -> this.stages.invoke(invocation, operation);
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
	@Nullable Object notAcquired(LockOperation operation, LockRequest request, @Nullable Object target,
			@Nullable Object[] args) throws Throwable {
		return this.notAcquired.notAcquired(operation, request, target, args, () -> SKIPPED);
	}

	@Nullable Object fallback(LockOperation operation, LockRequest request, @Nullable Object target,
			@Nullable Object[] args, LockException cause) throws Throwable {
		return this.notAcquired.fallback(operation, request, target, args, cause);
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

	static Throwable unwrap(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

}
