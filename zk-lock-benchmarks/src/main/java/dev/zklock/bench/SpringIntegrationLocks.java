package dev.zklock.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.apache.curator.framework.CuratorFramework;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

/**
 * Spring Integration's {@link ZookeeperLockRegistry} on the Curator client of a
 * {@link LockFixture}: one registry for the uncontended key, one for the contended
 * key.
 */
public final class SpringIntegrationLocks {

	private final ZookeeperLockRegistry registry;

	private final ZookeeperLockRegistry contendedRegistry;

	SpringIntegrationLocks(CuratorFramework client) {
		this.registry = new ZookeeperLockRegistry(client, "/bench/spring-integration/mutex");
		this.contendedRegistry = new ZookeeperLockRegistry(client, "/bench/spring-integration/contended");
	}

	/**
	 * One cycle with {@link Lock#lock()}.
	 */
	public void lock() {
		Lock lock = this.registry.obtain(LockFixture.KEY);
		lock.lock();
		lock.unlock();
	}

	/**
	 * One cycle with a timed {@link Lock#tryLock(long, TimeUnit)}, the form that
	 * matches a lock with a timeout.
	 * @throws InterruptedException when interrupted
	 */
	public void tryLock() throws InterruptedException {
		Lock lock = this.registry.obtain(LockFixture.KEY);
		if (lock.tryLock(10, TimeUnit.SECONDS)) {
			lock.unlock();
		}
		else {
			throw new IllegalStateException("Spring Integration lock not acquired in 10 s");
		}
	}

	/**
	 * The lock on the contended key, which the registry shares between threads.
	 * @return the lock
	 */
	public Lock contendedLock() {
		return this.contendedRegistry.obtain(LockFixture.CONTENDED_KEY);
	}

	void destroy() {
		this.registry.destroy();
		this.contendedRegistry.destroy();
	}

}
