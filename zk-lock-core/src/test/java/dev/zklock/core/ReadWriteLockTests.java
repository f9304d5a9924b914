package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * READ and WRITE semantics beyond the lock contract.
 */
class ReadWriteLockTests extends AbstractZooKeeperTests {

	private static final int READERS = 4;

	@Test
	void readersOverlap() throws Exception {
		CountDownLatch allInside = new CountDownLatch(READERS);
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger maxInside = new AtomicInteger();
		ExecutorService pool = Executors.newFixedThreadPool(READERS);
		try {
			List<Future<Boolean>> results = new ArrayList<>();
			for (int i = 0; i < READERS; i++) {
				results.add(pool.submit(() -> {
					try (LockHandle handle = this.manager.acquire(request(LockMode.READ).build())) {
						assertThat(handle.isAcquired()).isTrue();
						maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
						allInside.countDown();
						boolean overlapped = allInside.await(20, TimeUnit.SECONDS);
						inside.decrementAndGet();
						return overlapped;
					}
				}));
			}
			for (Future<Boolean> result : results) {
				assertThat(result.get(30, TimeUnit.SECONDS)).isTrue();
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(maxInside).hasValue(READERS);
	}

	@Test
	void writerExcludesReadersAndWriters() throws Exception {
		try (BackgroundHolder writer = BackgroundHolder.hold(this.manager, request(LockMode.WRITE).build())) {
			assertThat(acquireInOtherThread(request(LockMode.READ).timeout(Duration.ZERO).build())).isFalse();
			assertThat(acquireInOtherThread(request(LockMode.WRITE).timeout(Duration.ZERO).build())).isFalse();
			assertThat(acquireInOtherThread(request(LockMode.READ).timeout(Duration.ofMillis(200)).build())).isFalse();
		}
		try (BackgroundHolder reader = BackgroundHolder.hold(this.manager, request(LockMode.READ).build())) {
			assertThat(acquireInOtherThread(request(LockMode.READ).timeout(Duration.ZERO).build())).isTrue();
			assertThat(acquireInOtherThread(request(LockMode.WRITE).timeout(Duration.ZERO).build())).isFalse();
		}
		assertThat(acquireInOtherThread(request(LockMode.WRITE).timeout(Duration.ZERO).build())).isTrue();
	}

	@Test
	void writerMayAlsoTakeReadInSameThread() throws Exception {
		try (LockHandle write = this.manager.acquire(request(LockMode.WRITE).build())) {
			try (LockHandle read = this.manager.acquire(request(LockMode.READ).timeout(Duration.ZERO).build())) {
				assertThat(write.isAcquired()).isTrue();
				assertThat(read.isAcquired()).isTrue();
				assertThat(ephemeralNodes()).hasSize(2);
				try (LockHandle writeAgain = this.manager.acquire(request(LockMode.WRITE).timeout(Duration.ZERO).build())) {
					assertThat(writeAgain.isAcquired()).isTrue();
					assertThat(ephemeralNodes()).hasSize(2);
				}
				assertThat(acquireInOtherThread(request(LockMode.READ).timeout(Duration.ZERO).build())).isFalse();
			}
			assertThat(ephemeralNodes()).hasSize(1);
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void writeLockCanBeDowngradedToRead() throws Exception {
		LockHandle write = this.manager.acquire(request(LockMode.WRITE).build());
		LockHandle read = this.manager.acquire(request(LockMode.READ).build());
		write.close();
		assertThat(read.isAcquired()).isTrue();
		assertThat(acquireInOtherThread(request(LockMode.READ).timeout(Duration.ZERO).build())).isTrue();
		assertThat(acquireInOtherThread(request(LockMode.WRITE).timeout(Duration.ZERO).build())).isFalse();
		read.close();
		assertThat(acquireInOtherThread(request(LockMode.WRITE).timeout(Duration.ZERO).build())).isTrue();
	}

	@Test
	void readThenWriteInSameThreadFailsFast() throws Exception {
		try (LockHandle read = this.manager.acquire(request(LockMode.READ).build())) {
			long start = System.nanoTime();
			assertThatExceptionOfType(LockException.class)
				.isThrownBy(() -> this.manager.acquire(request(LockMode.WRITE).build()))
				.withMessageContaining("'rw'")
				.withMessageContaining("'doc'")
				.withMessageContaining("Take the WRITE lock first");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
			assertThat(read.isAcquired()).isTrue();
			assertThat(ephemeralNodes()).hasSize(1);
		}
		assertThat(ephemeralNodes()).isEmpty();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
	}

	@Test
	void readThenWriteOnSeveralKeysFailsBeforeTakingAnyKey() throws Exception {
		try (LockHandle read = this.manager.acquire(LockRequest.named("rw").keys("b").mode(LockMode.READ).build())) {
			assertThatExceptionOfType(LockException.class).isThrownBy(
					() -> this.manager.acquire(LockRequest.named("rw").keys("a", "b").mode(LockMode.WRITE).build()));
			assertThat(ephemeralNodes()).hasSize(1);
		}
	}

	private static LockRequest.Builder request(LockMode mode) {
		return LockRequest.named("rw").keys("doc").mode(mode);
	}

}
