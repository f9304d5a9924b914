package dev.zklock.shedlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockContextHolder;
import dev.zklock.LockException;
import dev.zklock.LockRequest;
import dev.zklock.core.AsyncLockHandle;
import dev.zklock.core.AsyncLockManager;

/**
 * ShedLock's {@link LockProvider} on zk-lock's engine: a {@code @SchedulerLock}
 * name is a zk-lock lock of that name without keys, under {@code zk-lock.base-path},
 * so the {@code locks} endpoint, revocation and the meters see it, and it excludes a
 * {@code @DistributedLock} of the same name.
 * <p>
 * {@link #lock} tries once and never waits: an empty result means another holder,
 * in this process (this thread included) or another, has the lock.
 * {@code lockAtLeastFor} becomes the request's {@code minHold}, measured on the
 * holder's monotonic clock; {@code lockAtMostFor} becomes its {@code maxHold}, after
 * which the lock is taken away and the loss reported with
 * {@link dev.zklock.LockLossReason#MAX_HOLD_EXCEEDED}. A holder that dies loses the
 * lock with its ZooKeeper session, not at {@code lockAtMostFor}. While the task
 * runs, {@link dev.zklock.LockContext#current()} on the thread that locked gives its
 * fencing token. {@link SimpleLock#extend} is not supported (see the migration guide).
 */
public class ZkLockProvider implements LockProvider {

	private static final Logger logger = LoggerFactory.getLogger(ZkLockProvider.class);

	private final AsyncLockManager locks;

	/**
	 * Create a provider on the given engine view.
	 * @param locks the asynchronous view of zk-lock's engine: its locks belong to no
	 * thread and are not re-entrant, as ShedLock's are
	 */
	public ZkLockProvider(AsyncLockManager locks) {
		this.locks = Objects.requireNonNull(locks, "locks must not be null");
	}

	@Override
	public Optional<SimpleLock> lock(LockConfiguration configuration) {
		Objects.requireNonNull(configuration, "configuration must not be null");
		LockRequest request = request(configuration);
		AsyncLockHandle handle = join(this.locks.acquire(request), request.name(), "acquire");
		if (!handle.isAcquired()) {
			logger.debug("Lock '{}' is held elsewhere: ShedLock skips the task", request.name());
			return Optional.empty();
		}
		LockContextHolder.push(handle);
		logger.debug("Lock '{}' acquired for ShedLock with fencing token {}", request.name(), handle.fencingToken());
		return Optional.of(new ZkSimpleLock(handle));
	}

	static LockRequest request(LockConfiguration configuration) {
		String name = configuration.getName();
		Duration atMost = configuration.getLockAtMostFor();
		if (atMost.isZero()) {
			throw new IllegalArgumentException("Lock '" + name + "' has lockAtMostFor 0, so it would be taken away "
					+ "at once: set lockAtMostFor of @SchedulerLock (or defaultLockAtMostFor of "
					+ "@EnableSchedulerLock) to the longest the task may hold it");
		}
		LockRequest.Builder builder = LockRequest.named(name).timeout(Duration.ZERO).maxHold(atMost);
		Duration atLeast = configuration.getLockAtLeastFor();
		if (!atLeast.isZero() && !atLeast.isNegative()) {
			builder.minHold(atLeast);
		}
		return builder.build();
	}

	static <T> T join(CompletableFuture<T> future, String name, String what) {
		try {
			return future.join();
		}
		catch (CompletionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			if (cause instanceof LockException lockException) {
				throw lockException;
			}
			throw new LockException("Could not " + what + " lock '" + name + "' for ShedLock: " + cause, cause);
		}
	}

	/**
	 * One hold, released once: ShedLock's {@link SimpleLock}.
	 */
	private static final class ZkSimpleLock implements SimpleLock {

		private final AsyncLockHandle handle;

		private boolean unlocked;

		ZkSimpleLock(AsyncLockHandle handle) {
			this.handle = handle;
		}

		@Override
		public void unlock() {
			synchronized (this) {
				if (this.unlocked) {
					throw new IllegalStateException("Lock '" + this.handle.name() + "' was already unlocked: call "
							+ "SimpleLock.unlock() once per successful LockProvider.lock()");
				}
				this.unlocked = true;
			}
			LockContextHolder.remove(this.handle);
			if (!this.handle.isHeld()) {
				logger.warn("Lock '{}' was not held any more when ShedLock released it (lost, in doubt, or past "
						+ "lockAtMostFor); its loss was reported to the LockLossListeners", this.handle.name());
			}
			// with lockAtLeastFor, the engine keeps the node until then and the release returns at once
			join(this.handle.release(), this.handle.name(), "release");
		}

		@Override
		public String toString() {
			return "ZkSimpleLock[" + this.handle.name() + "]";
		}

	}

}
