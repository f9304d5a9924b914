package dev.zklock;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.HeldCheck;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.core.LockPaths;

/**
 * Programmatic access to distributed locks, with the same semantics as
 * {@code @DistributedLock}. Inside a callback, and while a
 * handle from {@link #tryAcquire(LockRequest)} is open,
 * {@link LockContext#current()} gives the lock's fencing token and state.
 */
public class LockTemplate {

	private static final Logger logger = LoggerFactory.getLogger(LockTemplate.class);

	private final LockManager lockManager;

	private final LostLockAction lostLockAction;

	private final Supplier<@Nullable AsyncLockManager> asyncLockManager;

	/**
	 * Create a new template that throws {@link LockLostException} when a callback
	 * returns after its lock was lost.
	 * @param lockManager the manager that talks to ZooKeeper
	 */
	public LockTemplate(LockManager lockManager) {
		this(lockManager, LostLockAction.THROW);
	}

	/**
	 * Create a new template.
	 * @param lockManager the manager that talks to ZooKeeper
	 * @param lostLockAction what happens when a callback returns after its lock was
	 * lost or while it is in doubt
	 */
	public LockTemplate(LockManager lockManager, LostLockAction lostLockAction) {
		this(lockManager, lostLockAction, () -> null);
	}

	/**
	 * Create a new template that can also lock without blocking a thread, as the
	 * Kotlin extension {@code withLock} does.
	 * @param lockManager the manager that talks to ZooKeeper
	 * @param lostLockAction what happens when a callback returns after its lock was
	 * lost or while it is in doubt
	 * @param asyncLockManager supplies the asynchronous manager, resolved on first
	 * use; may supply {@code null} when there is none
	 */
	public LockTemplate(LockManager lockManager, LostLockAction lostLockAction,
			Supplier<@Nullable AsyncLockManager> asyncLockManager) {
		this.lockManager = lockManager;
		this.lostLockAction = Objects.requireNonNull(lostLockAction, "lostLockAction must not be null");
		this.asyncLockManager = Objects.requireNonNull(asyncLockManager, "asyncLockManager must not be null");
	}

	/**
	 * The asynchronous manager, for the Kotlin extension {@code withLock}.
	 */
	AsyncLockManager asyncLockManager() {
		AsyncLockManager manager = this.asyncLockManager.get();
		if (manager == null) {
			throw new IllegalStateException("This LockTemplate has no AsyncLockManager, which withLock needs to wait "
					+ "without blocking a thread; use the LockTemplate bean of zk-lock's auto-configuration, or create "
					+ "it with new LockTemplate(lockManager, lostLockAction, asyncLockManagerSupplier)");
		}
		return manager;
	}

	LostLockAction lostLockAction() {
		return this.lostLockAction;
	}

	/**
	 * Run the callback while holding the request's lock, and release the lock
	 * afterwards whatever happens. Runtime exceptions and errors thrown by the
	 * callback pass through unchanged; checked ones are wrapped in an
	 * {@link UndeclaredThrowableException}. A failure to release is added as
	 * suppressed to the callback's exception, or thrown when the callback succeeded.
	 * When the callback returns while its lock is lost or in doubt, the lock is
	 * released and a {@link LockLostException} thrown, or a warning logged, as the
	 * {@link LostLockAction} says.
	 * @param <T> the result type
	 * @param request what to lock
	 * @param callback the work
	 * @return the callback's result
	 * @throws LockTimeoutException when the lock was not acquired in time
	 * @throws LockLostException when the callback returned after the lock was lost
	 * and the action is {@link LostLockAction#THROW}
	 * @throws LockException when ZooKeeper fails or the thread is interrupted while
	 * waiting
	 */
	public <T extends @Nullable Object> T execute(LockRequest request, LockCallback<T> callback) {
		Objects.requireNonNull(callback, "callback must not be null");
		LockHandle handle = this.lockManager.acquire(request);
		if (!handle.isAcquired()) {
			throw timeout(request);
		}
		T result;
		try {
			result = callback.doWithLock();
		}
		catch (Throwable ex) {
			try {
				handle.close();
			}
			catch (RuntimeException releaseFailure) {
				ex.addSuppressed(releaseFailure);
			}
			throw rethrow(ex);
		}
		LockLostException lost = HeldCheck.lossOf(handle);
		try {
			handle.close();
		}
		catch (RuntimeException releaseFailure) {
			if (lost == null) {
				throw releaseFailure;
			}
			lost.addSuppressed(releaseFailure);
		}
		if (lost != null) {
			if (this.lostLockAction == LostLockAction.THROW) {
				throw lost;
			}
			logger.warn("LockTemplate callback returned after its lock was no longer held: {}", lost.getMessage());
		}
		return result;
	}

	/**
	 * Try to acquire the request's lock, for use in try-with-resources. Check
	 * {@link LockHandle#isAcquired()} before doing the guarded work.
	 * @param request what to lock
	 * @return the handle
	 */
	public LockHandle tryAcquire(LockRequest request) {
		return this.lockManager.acquire(request);
	}

	/**
	 * Revoke a lock, in whatever process it is held: the current holder of the key
	 * loses it ({@link LockLossReason#REVOKED}) and the next waiter gets it with a
	 * higher fencing token. For READ and SEMAPHORE, every current holder is removed.
	 * Logged at WARN and counted in {@code zk.lock.revocations}.
	 * @param name the lock name
	 * @param key the key, or {@code null} for a lock without keys
	 * @return what was removed
	 * @throws LockRevocationException when nothing was removed: no such lock, key
	 * or holder, the holders changed meanwhile, or ZooKeeper is not reachable
	 * @throws UnsupportedOperationException when the template's lock manager is not
	 * zk-lock's own
	 */
	public LockRevocation revoke(String name, @Nullable String key) {
		return revoke(name, key, null);
	}

	/**
	 * Revoke one holder of a lock, or every current holder, as
	 * {@link #revoke(String, String)} does.
	 * @param name the lock name
	 * @param key the key, or {@code null} for a lock without keys
	 * @param node the name of the holder's node, as {@code GET /actuator/locks/{name}}
	 * shows it, or {@code null} for every current holder
	 * @return what was removed
	 * @throws LockRevocationException when nothing was removed
	 * @throws UnsupportedOperationException when the template's lock manager is not
	 * zk-lock's own
	 */
	public LockRevocation revoke(String name, @Nullable String key, @Nullable String node) {
		if (!(InstrumentedLockManager.unwrap(this.lockManager) instanceof CuratorLockManager manager)) {
			throw new UnsupportedOperationException("Cannot revoke lock '" + name + "': the LockTemplate's lock "
					+ "manager is " + this.lockManager.getClass().getName() + ", not zk-lock's CuratorLockManager");
		}
		return manager.revoke(name, key, node, null);
	}

	LockTimeoutException timeout(LockRequest request) {
		String keys = request.keys().isEmpty() ? "without keys"
				: "for keys " + request.keys().stream().map(LockPaths::abbreviate).toList();
		String timeout = (request.timeout() != null) ? request.timeout().toString() : "the default timeout";
		return new LockTimeoutException("Lock '" + request.name() + "' " + keys + " in " + request.mode()
				+ " mode was not acquired within " + timeout
				+ "; it is held elsewhere (or all its permits are taken). Raise the timeout or handle "
				+ "LockTimeoutException");
	}

	private static RuntimeException rethrow(Throwable ex) {
		if (ex instanceof RuntimeException runtimeException) {
			return runtimeException;
		}
		if (ex instanceof Error error) {
			throw error;
		}
		return new UndeclaredThrowableException(ex);
	}

}
