package dev.zklock.core;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.LockHandle;
import dev.zklock.LockManager;
import dev.zklock.LockRequest;
import dev.zklock.testsupport.StoppableZooKeeper;

/**
 * Another application instance: its own ZooKeeper session and lock manager on the
 * same base path, whose threads hold locks until told to release them.
 */
public final class OtherInstance implements AutoCloseable {

	private final CuratorFramework client;

	private final CuratorLockManager manager;

	public OtherInstance(StoppableZooKeeper server, String basePath) {
		this.client = server.newClient(30_000);
		this.manager = new CuratorLockManager(this.client, basePath, Duration.ofSeconds(30));
	}

	public CuratorFramework client() {
		return this.client;
	}

	public CuratorLockManager manager() {
		return this.manager;
	}

	/**
	 * Hold a lock in a new thread until the returned holder is closed.
	 * @param request what to lock
	 * @param threadName the name of the holding thread
	 * @return the holder, once the lock is held
	 */
	public Holder hold(LockRequest request, String threadName) throws InterruptedException {
		return hold(this.manager, request, threadName);
	}

	/**
	 * Hold a lock of the given manager in a new thread until the returned holder is
	 * closed.
	 * @param manager the manager to lock with
	 * @param request what to lock
	 * @param threadName the name of the holding thread
	 * @return the holder, once the lock is held
	 */
	public static Holder hold(LockManager manager, LockRequest request, String threadName)
			throws InterruptedException {
		Holder holder = new Holder(manager, request, threadName);
		if (!holder.acquired.await(15, TimeUnit.SECONDS) || holder.failure.get() != null) {
			holder.close();
			throw new IllegalStateException("Could not hold " + request, holder.failure.get());
		}
		return holder;
	}

	@Override
	public void close() {
		this.client.close();
	}

	/**
	 * A thread holding a lock.
	 */
	public static final class Holder implements AutoCloseable {

		private final CountDownLatch acquired = new CountDownLatch(1);

		private final CountDownLatch release = new CountDownLatch(1);

		private final AtomicReference<Throwable> failure = new AtomicReference<>();

		private final Thread thread;

		Holder(LockManager manager, LockRequest request, String threadName) {
			this.thread = new Thread(() -> {
				try (LockHandle handle = manager.acquire(request)) {
					if (!handle.isAcquired()) {
						throw new IllegalStateException("Not acquired: " + request);
					}
					this.acquired.countDown();
					this.release.await();
				}
				catch (Throwable ex) {
					this.failure.set(ex);
					this.acquired.countDown();
				}
			}, threadName);
			this.thread.start();
		}

		@Override
		public void close() throws InterruptedException {
			this.release.countDown();
			this.thread.join(TimeUnit.SECONDS.toMillis(15));
			if (this.thread.isAlive()) {
				throw new IllegalStateException("Holder thread " + this.thread.getName() + " did not finish");
			}
		}

	}

}
