package dev.zklock.aop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs an increment from many threads at once, all released by one latch, so that
 * unguarded increments collide.
 */
final class Hammer {

	private Hammer() {
	}

	/**
	 * Run the increment {@code perThread} times on each of {@code threads} threads and
	 * wait up to 60 s for each thread to finish.
	 * @param threads the number of threads
	 * @param perThread the increments per thread
	 * @param increment the increment
	 * @throws Exception when an increment fails or a thread does not finish in time
	 */
	static void hammer(int threads, int perThread, Runnable increment) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> futures = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				futures.add(executor.submit(() -> {
					start.await();
					for (int j = 0; j < perThread; j++) {
						increment.run();
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : futures) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

}
