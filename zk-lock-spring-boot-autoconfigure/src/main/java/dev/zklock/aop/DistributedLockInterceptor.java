package dev.zklock.aop;

import java.util.List;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.support.AopUtils;

import dev.zklock.FencingToken;
import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockKeyException;
import dev.zklock.LockLostException;
import dev.zklock.LockRequest;
import dev.zklock.LockTimeoutException;
import dev.zklock.LostLockAction;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.HeldCheck;
import dev.zklock.LockManager;

/**
 * Runs {@link dev.zklock.annotation.DistributedLock} methods while holding their
 * lock. Per call it looks up the cached {@link LockOperation}, evaluates the key,
 * acquires, proceeds and releases, also when the method throws; the method's own
 * exception passes through unchanged.
 * <p>
 * When the lock is not acquired in time it calls the fallback method, skips the
 * call ({@link OnTimeout#SKIP}) or throws {@link LockTimeoutException}. When the
 * acquisition itself fails with a {@link LockException} (ZooKeeper unavailable,
 * thread interrupted) the fallback method is called if there is one; otherwise
 * the exception is thrown. A {@link LockKeyException} is always thrown.
 * <p>
 * A parameter of type {@link FencingToken} receives the lock's token. When the
 * method returns while its lock is lost or in doubt, the lock is released and a
 * {@link LockLostException} thrown instead of the result, so that a surrounding
 * transaction rolls back; {@link LostLockAction#LOG} logs a warning instead.
 * <p>
 * Methods returning an asynchronous type are handed to an {@link AsyncLockInvoker}:
 * their lock is held until the returned work completes.
 */
public class DistributedLockInterceptor implements MethodInterceptor {

	private static final Logger logger = LoggerFactory.getLogger(DistributedLockInterceptor.class);

	private static final ThreadLocal<LockOperation> acquiring = new ThreadLocal<>();

	private final LockOperationSource operationSource;

	private final Supplier<LockManager> lockManager;

	private final NotAcquiredHandler notAcquired;

	private final LostLockAction lostLockAction;

	private volatile AsyncLockInvoker asyncInvoker;

	/**
	 * Create a new interceptor that throws {@link LockLostException} when a method
	 * returns after its lock was lost.
	 * @param operationSource where lock operations come from
	 * @param lockManager supplies the lock manager, resolved on first use
	 * @param listeners supplies the listeners told about skipped calls and
	 * fallbacks, resolved on first use
	 */
	public DistributedLockInterceptor(LockOperationSource operationSource, Supplier<LockManager> lockManager,
			Supplier<List<LockInterceptionListener>> listeners) {
		this(operationSource, lockManager, listeners, LostLockAction.THROW);
	}

	/**
	 * Create a new interceptor.
	 * @param operationSource where lock operations come from
	 * @param lockManager supplies the lock manager, resolved on first use
	 * @param listeners supplies the listeners told about skipped calls and
	 * fallbacks, resolved on first use
	 * @param lostLockAction what happens when a method returns after its lock was
	 * lost or while it is in doubt
	 */
	public DistributedLockInterceptor(LockOperationSource operationSource, Supplier<LockManager> lockManager,
			Supplier<List<LockInterceptionListener>> listeners, LostLockAction lostLockAction) {
		this.operationSource = operationSource;
		this.lockManager = lockManager;
		this.notAcquired = new NotAcquiredHandler(listeners);
		this.lostLockAction = lostLockAction;
		this.asyncInvoker = new AsyncLockInvoker(() -> null, this.notAcquired, lostLockAction);
	}

	/**
	 * Set where the locks of methods returning {@code CompletionStage},
	 * {@code CompletableFuture}, {@code Mono} or {@code Flux} come from: those are
	 * held until the returned work completes.
	 * @param asyncLockManager supplies the manager, resolved on first use
	 */
	public void setAsyncLockManager(Supplier<AsyncLockManager> asyncLockManager) {
		this.asyncInvoker = new AsyncLockInvoker(asyncLockManager, this.notAcquired, this.lostLockAction);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LockOperation operation = this.operationSource.getOperation(invocation.getMethod(), targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		AsyncReturnType asyncType = operation.getAsyncReturnType();
		if (asyncType != null) {
			return this.asyncInvoker.invoke(invocation, operation, asyncType);
		}
		@Nullable Object[] args = invocation.getArguments();
		LockRequest request = operation.createRequest(args, target);
		LockHandle handle;
		try {
			handle = acquire(operation, request);
		}
		catch (LockKeyException ex) {
			throw ex;
		}
		catch (LockException ex) {
			if (!operation.hasFallback()) {
				throw ex;
			}
			return this.notAcquired.fallback(operation, request, target, args, ex);
		}
		if (!handle.isAcquired()) {
			return this.notAcquired.notAcquired(operation, request, target, args, operation::skipValue);
		}
		Object result;
		try {
			passFencingToken(operation, args, handle);
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			LockLostException lost = HeldCheck.lossOf(handle);
			if (lost != null) {
				ex.addSuppressed(lost);
			}
			releaseAfterFailure(handle, ex);
			throw ex;
		}
		LockLostException lost = HeldCheck.lossOf(handle);
		if (lost == null) {
			handle.close();
			return result;
		}
		return returnedAfterLoss(operation, handle, lost, result);
	}

	private static void passFencingToken(LockOperation operation, @Nullable Object[] args, LockHandle handle) {
		int index = operation.getFencingTokenParameter();
		if (index >= 0) {
			args[index] = new FencingToken(handle.fencingToken());
		}
	}

	private @Nullable Object returnedAfterLoss(LockOperation operation, LockHandle handle, LockLostException lost,
			@Nullable Object result) {
		if (this.lostLockAction == LostLockAction.LOG) {
			logger.warn("{} returned after its lock was no longer held; returning its result because "
					+ "zk-lock.lost-lock-action=LOG: {}", operation.describe(), lost.getMessage());
			releaseAfterFailure(handle, lost);
			for (Throwable failure : lost.getSuppressed()) {
				logger.warn("Releasing the lock of {} failed as well", operation.describe(), failure);
			}
			return result;
		}
		LockLostException exception = new LockLostException(operation.describe() + " returned after its lock was "
				+ "no longer held, so its result is discarded and a surrounding transaction rolls back (set "
				+ "zk-lock.lost-lock-action=LOG to only log this). " + lost.getMessage(), lost.getLockName(),
				lost.getKey());
		releaseAfterFailure(handle, exception);
		throw exception;
	}

	/**
	 * The operation whose lock the current thread is acquiring through an
	 * interceptor right now, so that a {@link LockManager} decorator such as a
	 * metrics one can tell what a timeout leads to.
	 * @return the operation, or {@code null} when the thread is not inside an
	 * interceptor's acquisition
	 */
	public static @Nullable LockOperation currentOperation() {
		return acquiring.get();
	}

	private LockHandle acquire(LockOperation operation, LockRequest request) {
		LockOperation outer = startAcquiring(operation);
		try {
			return this.lockManager.get().acquire(request);
		}
		finally {
			acquiring.set(outer);
		}
	}

	/**
	 * Run an acquisition with the operation as {@link #currentOperation()}.
	 */
	static <T> T whileAcquiring(LockOperation operation, Supplier<T> acquisition) {
		LockOperation outer = startAcquiring(operation);
		try {
			return acquisition.get();
		}
		finally {
			acquiring.set(outer);
		}
	}

	// Callers set the outer operation back rather than remove the entry, so the thread
	// keeps its entry instead of making a new one per call
	private static LockOperation startAcquiring(LockOperation operation) {
		LockOperation outer = acquiring.get();
		acquiring.set(operation);
		return outer;
	}

	private static void releaseAfterFailure(LockHandle handle, Throwable failure) {
		try {
			handle.close();
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
		}
	}

}
