package dev.zklock.aop;

import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockException;
import dev.zklock.LockRequest;
import dev.zklock.LockTimeoutException;
import dev.zklock.annotation.OnTimeout;

/**
 * What a {@link dev.zklock.annotation.DistributedLock} call whose lock was not
 * acquired returns, for blocking and asynchronous calls alike: the fallback
 * method's result, the skipped call's value ({@link OnTimeout#SKIP}) or a thrown
 * {@link LockTimeoutException}. The {@link LockInterceptionListener}s hear of every
 * fallback and skipped call.
 */
final class NotAcquiredHandler {

	private static final Logger logger = LoggerFactory.getLogger(NotAcquiredHandler.class);

	private final Supplier<List<LockInterceptionListener>> listeners;

	NotAcquiredHandler(Supplier<List<LockInterceptionListener>> listeners) {
		this.listeners = listeners;
	}

	/**
	 * What a call whose lock was not acquired in time returns.
	 * @param skipped the value of a skipped call, asked for only when the call is
	 * skipped
	 * @return the fallback's result or the skipped value
	 * @throws LockTimeoutException when there is neither a fallback nor SKIP
	 * @throws Throwable what the fallback threw
	 */
	@Nullable Object notAcquired(LockOperation operation, LockRequest request, @Nullable Object target,
			@Nullable Object[] args, Supplier<? extends @Nullable Object> skipped) throws Throwable {
		LockTimeoutException timeout = new LockTimeoutException("Lock '" + request.name() + "' for keys "
				+ request.keys() + " was not acquired within " + describeTimeout(request) + " by "
				+ operation.describe() + "; raise the timeout, or handle contention with onTimeout = SKIP or a "
				+ "fallbackMethod");
		if (operation.hasFallback()) {
			return fallback(operation, request, target, args, timeout);
		}
		if (operation.getOnTimeout() == OnTimeout.SKIP) {
			if (logger.isDebugEnabled()) {
				logger.debug("Lock '{}' for keys {} not acquired within {}; skipped {}", request.name(),
						request.keys(), describeTimeout(request), operation.describe());
			}
			for (LockInterceptionListener listener : this.listeners.get()) {
				listener.skipped(request, operation.getMethod());
			}
			return skipped.get();
		}
		throw timeout;
	}

	/**
	 * Call the operation's fallback method for a lock that was not acquired.
	 * @param cause why not
	 * @return the fallback's result
	 * @throws Throwable what the fallback threw, unchanged
	 */
	@Nullable Object fallback(LockOperation operation, LockRequest request, @Nullable Object target,
			@Nullable Object[] args, LockException cause) throws Throwable {
		if (logger.isDebugEnabled()) {
			logger.debug("Lock '{}' for keys {} not acquired ({}); calling the fallback of {}", request.name(),
					request.keys(), cause.getMessage(), operation.describe());
		}
		for (LockInterceptionListener listener : this.listeners.get()) {
			listener.fallback(request, operation.getMethod(), cause);
		}
		return operation.invokeFallback(target, args, cause);
	}

	private static String describeTimeout(LockRequest request) {
		return (request.timeout() != null) ? request.timeout().toString()
				: "the default timeout (zk-lock.default-timeout)";
	}

}
