package dev.zklock.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor.TaskResult;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;

import dev.zklock.LockContext;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.shedlock.autoconfigure.ZkLockShedLockAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Eight threads run tasks of two names through ShedLock's own
 * {@link DefaultLockingTaskExecutor} with {@code lockAtLeastFor} 5 ms: every attempt
 * either runs or is skipped, no two runs of one name overlap, an unsynchronized
 * counter per name loses no update, and fencing tokens of one name increase.
 */
class ZkLockProviderFuzzTests {

	private static final int THREADS = 8;

	private static final int ATTEMPTS = 60;

	private static final String[] NAMES = { "fuzz-a", "fuzz-b" };

	@Test
	void everyAttemptRunsOrSkipsAndRunsOfOneNameNeverOverlap() {
		TestZooKeeper.contextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockShedLockAutoConfiguration.class))
			.run((context) -> {
				DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(
						context.getBean(LockProvider.class));
				Name[] names = { new Name(), new Name() };
				AtomicInteger skipped = new AtomicInteger();
				CountDownLatch start = new CountDownLatch(1);
				ExecutorService threads = Executors.newFixedThreadPool(THREADS);
				List<Future<?>> done = new ArrayList<>();
				for (int t = 0; t < THREADS; t++) {
					int thread = t;
					done.add(threads.submit(() -> {
						start.await();
						for (int i = 0; i < ATTEMPTS; i++) {
							int n = (thread + i) % 2;
							LockConfiguration config = new LockConfiguration(Instant.now(), NAMES[n],
									Duration.ofSeconds(30), Duration.ofMillis(5));
							TaskResult<Boolean> result = execute(executor, names[n], config);
							if (!result.wasExecuted()) {
								skipped.incrementAndGet();
							}
						}
						return null;
					}));
				}
				start.countDown();
				for (Future<?> future : done) {
					future.get(120, TimeUnit.SECONDS);
				}
				threads.shutdown();
				int runs = names[0].runs.get() + names[1].runs.get();
				System.err.printf("SHEDLOCK FUZZ: %d attempts, %d runs (%d + %d), %d skipped%n", THREADS * ATTEMPTS,
						runs, names[0].runs.get(), names[1].runs.get(), skipped.get());
				assertThat(runs + skipped.get()).isEqualTo(THREADS * ATTEMPTS);
				for (Name name : names) {
					assertThat(name.overlaps.get()).as("runs that found another inside").isZero();
					assertThat(name.unsafeCounter).as("unsynchronized counter").isEqualTo(name.runs.get());
					assertThat(name.tokenRegressions.get()).as("fencing tokens that did not increase").isZero();
					assertThat(name.runs.get()).as("each name ran").isPositive();
				}
				assertThat(skipped.get()).as("contended attempts are skipped, not queued").isPositive();
			});
	}

	private static TaskResult<Boolean> execute(DefaultLockingTaskExecutor executor, Name name,
			LockConfiguration config) {
		try {
			return executor.executeWithLock(name::run, config);
		}
		catch (Throwable ex) {
			throw new IllegalStateException("Task '" + config.getName() + "' failed", ex);
		}
	}

	/**
	 * The counters of one name.
	 */
	static final class Name {

		final AtomicInteger inside = new AtomicInteger();

		final AtomicInteger runs = new AtomicInteger();

		final AtomicInteger overlaps = new AtomicInteger();

		final AtomicInteger tokenRegressions = new AtomicInteger();

		final AtomicLong lastToken = new AtomicLong();

		// guarded by the lock alone: a lost update shows an overlap
		int unsafeCounter;

		Boolean run() {
			if (this.inside.incrementAndGet() != 1) {
				this.overlaps.incrementAndGet();
			}
			long token = LockContext.current().fencingToken();
			if (this.lastToken.getAndSet(token) >= token) {
				this.tokenRegressions.incrementAndGet();
			}
			int seen = this.unsafeCounter;
			Thread.yield();
			this.unsafeCounter = seen + 1;
			this.runs.incrementAndGet();
			this.inside.decrementAndGet();
			return true;
		}

	}

}
