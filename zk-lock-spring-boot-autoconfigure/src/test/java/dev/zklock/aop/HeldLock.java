package dev.zklock.aop;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockManager;

/**
 * A lock held by another thread until closed, to make annotated calls contend.
 */
final class HeldLock implements AutoCloseable {

	private final CountDownLatch release = new CountDownLatch(1);

	private final CountDownLatch acquired = new CountDownLatch(1);

	private final AtomicReference<Throwable> failure = new AtomicReference<>();

	private final Thread thread;

	private HeldLock(LockManager lockManager, LockRequest request) {
		this.thread = new Thread(() -> {
			try (LockHandle handle = lockManager.acquire(request)) {
				if (!handle.isAcquired()) {
					throw new IllegalStateException("Holder did not acquire " + request);
				}
				this.acquired.countDown();
				this.release.await();
			}
			catch (Throwable ex) {
				this.failure.set(ex);
				this.acquired.countDown();
			}
		}, "lock-holder");
		this.thread.start();
	}

	static HeldLock hold(LockManager lockManager, String name, String... keys) throws InterruptedException {
		HeldLock held = new HeldLock(lockManager,
				LockRequest.named(name).keys(keys).timeout(Duration.ofSeconds(10)).build());
		if (!held.acquired.await(15, TimeUnit.SECONDS) || held.failure.get() != null) {
			held.close();
			throw new IllegalStateException("Could not hold lock " + name, held.failure.get());
		}
		return held;
	}

	@Override
	public void close() throws InterruptedException {
		this.release.countDown();
		this.thread.join(TimeUnit.SECONDS.toMillis(15));
		if (this.thread.isAlive()) {
			throw new IllegalStateException("Lock holder thread did not finish");
		}
	}

}
