package dev.zklock.integration;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.springframework.integration.support.locks.ExpirableLockRegistry;

import dev.zklock.core.LockPaths;
import dev.zklock.LockManager;

/**
 * Spring Integration's {@link ExpirableLockRegistry} on zk-lock's engine: the lock
 * of key {@code k} is zk-lock's lock {@code <name>/k} under {@code zk-lock.base-path}
 * in MUTEX mode, so the {@code locks} endpoint, revocation, the meters and the loss
 * events see it, and {@link dev.zklock.LockContext#current()} gives its fencing token
 * to the thread that holds it.
 * <p>
 * Each lock is re-entrant per thread, as {@code LockRegistryLeaderInitiator} needs,
 * and must be unlocked by the thread that locked it. Waiters are served in the order
 * they asked, across processes. A lock that is held is never expired.
 * <p>
 * While ZooKeeper is unreachable, the locks answer as {@link Lock} says rather
 * than throw zk-lock's {@link dev.zklock.LockConnectionException}: a
 * {@code tryLock} whose time runs out answers {@code false}, so
 * {@code executeLocked(key, Duration, task)} throws its {@code TimeoutException};
 * {@code lock()} waits until ZooKeeper is back.
 */
public class ZkLockRegistry implements ExpirableLockRegistry<Lock> {

	private final LockManager lockManager;

	private final String name;

	private final ConcurrentMap<String, ZkRegistryLock> locks = new ConcurrentHashMap<>();

	/**
	 * Create a registry whose locks all share one lock name.
	 * @param lockManager zk-lock's lock manager
	 * @param name the lock name, the first path segment under the base path
	 */
	public ZkLockRegistry(LockManager lockManager, String name) {
		this.lockManager = Objects.requireNonNull(lockManager, "lockManager must not be null");
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("The lock name of a ZkLockRegistry must not be blank: set "
					+ "zk-lock.integration.lock-registry.name");
		}
		this.name = name;
	}

	/**
	 * The lock of a key; the same object for the same key until it expires.
	 * @param lockKey the key, a non-blank {@link String}
	 * @return the lock
	 */
	@Override
	public Lock obtain(Object lockKey) {
		if (!(lockKey instanceof String key) || key.isBlank()) {
			throw new IllegalArgumentException("ZkLockRegistry.obtain(lockKey) takes a non-blank String key, got "
					+ ((lockKey != null) ? lockKey.getClass().getName() + " '" + lockKey + "'" : "null"));
		}
		ZkRegistryLock lock = this.locks.compute(key,
				(k, existing) -> (existing != null) ? existing : new ZkRegistryLock(this.lockManager, this.name, k));
		lock.touch();
		return lock;
	}

	/**
	 * Forget the locks obtained more than {@code age} ago, on the monotonic clock,
	 * that no thread holds; a held lock is never forgotten.
	 * @param age the age in milliseconds
	 */
	@Override
	public void expireUnusedOlderThan(long age) {
		long now = System.nanoTime();
		long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
		for (String key : this.locks.keySet()) {
			this.locks.computeIfPresent(key,
					(k, lock) -> (!lock.isLocked() && now - lock.lastUsed() > ageNanos) ? null : lock);
		}
	}

	/**
	 * The lock name under which the keys of this registry live.
	 * @return the name
	 */
	public String getName() {
		return this.name;
	}

	/**
	 * The number of locks the registry keeps, held or not.
	 * @return the count
	 */
	public int size() {
		return this.locks.size();
	}

	@Override
	public String toString() {
		return "ZkLockRegistry[name=" + this.name + ", locks=" + this.locks.size() + "]";
	}

	static String describe(String name, String key) {
		return "lock '" + name + "' key '" + LockPaths.abbreviate(key) + "'";
	}

}
