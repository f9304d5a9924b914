package dev.zklock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SEMAPHORE with several permits.
 */
class SemaphoreTests extends AbstractZooKeeperTests {

	private static final int PERMITS = 3;

	private static final int THREADS = 12;

	@Test
	void admitsExactlyPermitsHoldersAtOnce() throws Exception {
		LockRequest request = LockRequest.named("pool").keys("printer").mode(LockMode.SEMAPHORE).permits(PERMITS)
			.build();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger maxInside = new AtomicInteger();
		// the first PERMITS holders wait for each other: only possible if that many get in together
		CountDownLatch firstHolders = new CountDownLatch(PERMITS);
		CyclicBarrier start = new CyclicBarrier(THREADS);
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<Boolean>> results = new ArrayList<>();
			for (int i = 0; i < THREADS; i++) {
				results.add(pool.submit(() -> {
					start.await();
					boolean together = true;
					for (int round = 0; round < 3; round++) {
						try (LockHandle handle = this.manager.acquire(request)) {
							assertThat(handle.isAcquired()).isTrue();
							maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
							firstHolders.countDown();
							together &= firstHolders.await(20, TimeUnit.SECONDS);
							Thread.sleep(2);
							inside.decrementAndGet();
						}
					}
					return together;
				}));
			}
			for (Future<Boolean> result : results) {
				assertThat(result.get(60, TimeUnit.SECONDS)).isTrue();
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(maxInside).hasValue(PERMITS);
		assertThat(ephemeralNodes()).isEmpty();
	}

}
