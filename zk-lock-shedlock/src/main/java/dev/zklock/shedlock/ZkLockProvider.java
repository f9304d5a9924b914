package dev.zklock.shedlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockContextHolder;
import dev.zklock.LockException;
import dev.zklock.LockLostException;
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
 * fencing token.
 * <p>
 * {@link SimpleLock#extend(Duration, Duration)} re-arms the hold from now:
 * {@code lockAtMostFor} becomes its maxHold and {@code lockAtLeastFor} its minHold
 * ({@link AsyncLockHandle#extendMaxHold(Duration, Duration)}), so ShedLock's
 * {@code KeepAliveLockProvider} can wrap this provider. It answers empty once the
 * lock was lost or taken away, and, as ShedLock's contract says, the extended lock
 * takes no further call: use the one returned.
 * <p>
 * While ZooKeeper is unreachable, {@link #lock} throws zk-lock's
 * {@link dev.zklock.LockConnectionException} at once rather than answer empty,
 * which would mean "held elsewhere": as with any provider whose storage is down,
 * the task does not run this time and the failure reaches the scheduler, which
 * logs it.
 */
public class ZkLockProvider implements ExtensibleLockProvider {

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
		checkAtMost(name, atMost);
		LockRequest.Builder builder = LockRequest.named(name).timeout(Duration.ZERO).maxHold(atMost);
		Duration atLeast = configuration.getLockAtLeastFor();
		if (!atLeast.isZero() && !atLeast.isNegative()) {
			builder.minHold(atLeast);
		}
		return builder.build();
	}

	// zk-lock refuses such a maxHold too, but without naming ShedLock's setting
	private static void checkAtMost(String name, Duration atMost) {
		if (atMost.isZero() || atMost.isNegative()) {
			throw new IllegalArgumentException("Lock '" + name + "' has lockAtMostFor " + atMost + ", so it would be "
					+ "taken away at once: set lockAtMostFor of @SchedulerLock (or defaultLockAtMostFor of "
					+ "@EnableSchedulerLock, or the lockAtMostFor passed to extend) to the longest the task may "
					+ "hold it");
		}
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
	 * One hold as ShedLock sees it: unlocked or extended once, after which this
	 * object is spent; an extension hands the same hold on to a new one.
	 */
	private static final class ZkSimpleLock implements SimpleLock {

		private final AsyncLockHandle handle;

		private boolean spent;

		ZkSimpleLock(AsyncLockHandle handle) {
			this.handle = handle;
		}

		@Override
		public void unlock() {
			spend("unlock");
			LockContextHolder.remove(this.handle);
			if (!this.handle.isHeld()) {
				logger.warn("Lock '{}' was not held any more when ShedLock released it (lost, in doubt, or past "
						+ "lockAtMostFor); its loss was reported to the LockLossListeners", this.handle.name());
			}
			// with lockAtLeastFor, the engine keeps the node until then and the release returns at once
			join(this.handle.release(), this.handle.name(), "release");
		}

		/**
		 * Extend the hold: {@code lockAtMostFor} becomes its maxHold from now and
		 * {@code lockAtLeastFor} its minHold from now (a longer one already promised
		 * is kept).
		 * @return the extended lock, or empty when the lock was lost or taken away
		 * meanwhile (then released here)
		 * @throws IllegalStateException when this lock was unlocked or extended already
		 */
		@Override
		public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
			String name = this.handle.name();
			Objects.requireNonNull(lockAtMostFor, "lockAtMostFor must not be null");
			Objects.requireNonNull(lockAtLeastFor, "lockAtLeastFor must not be null");
			checkAtMost(name, lockAtMostFor);
			Duration atLeast = lockAtLeastFor.isNegative() ? Duration.ZERO : lockAtLeastFor;
			spend("extend");
			// completed at once: extending needs no call to ZooKeeper
			Throwable failure = this.handle.extendMaxHold(lockAtMostFor, atLeast).handle((ignored, ex) -> ex).join();
			if (failure instanceof LockLostException lost) {
				// ShedLock's answer for a lock it no longer has; what is left of the hold goes now
				logger.warn("Lock '{}' could not be extended for ShedLock: {}", name, lost.getMessage());
				join(this.handle.release(), name, "release");
				return Optional.empty();
			}
			if (failure instanceof RuntimeException refused) {
				// a lockAtMostFor shorter than what is left of lockAtLeastFor: the hold and this lock stay as they were
				synchronized (this) {
					this.spent = false;
				}
				throw refused;
			}
			logger.debug("Lock '{}' extended for ShedLock: lockAtMostFor {} and lockAtLeastFor {} from now", name,
					lockAtMostFor, atLeast);
			return Optional.of(new ZkSimpleLock(this.handle));
		}

		// ShedLock's rule: once unlocked or extended, a lock takes no other call
		private void spend(String call) {
			synchronized (this) {
				if (this.spent) {
					if (!this.handle.isAcquired()) {
						// released meanwhile: its lock context on this thread goes too
						LockContextHolder.remove(this.handle);
					}
					throw new IllegalStateException("Lock '" + this.handle.name() + "' was already unlocked or "
							+ "extended, so it cannot " + call + ": call unlock() or extend(..) once per lock, and "
							+ "use the lock that extend(..) returned from then on");
				}
				this.spent = true;
			}
		}

		@Override
		public String toString() {
			return "ZkSimpleLock[" + this.handle.name() + "]";
		}

	}

}
