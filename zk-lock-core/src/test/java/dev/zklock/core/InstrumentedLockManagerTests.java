package dev.zklock.core;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.zklock.LockContext;
import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockManager;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.TestThreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The decorator that tells instrumentations about acquisitions and releases, over
 * a real lock manager.
 */
class InstrumentedLockManagerTests extends AbstractZooKeeperTests {

	private final List<String> events = new CopyOnWriteArrayList<>();

	@Test
	void reportsAcquireAndReleaseOnce() {
		LockManager instrumented = instrument(recording("a"), recording("b"));
		try (LockHandle handle = instrumented.acquire(LockRequest.named("ledger").keys("1").build())) {
			assertThat(handle.isAcquired()).isTrue();
			assertThat(handle.fencingToken()).isPositive();
			assertThat(handle.name()).isEqualTo("ledger");
			assertThat(handle.keys()).containsExactly("1");
			assertThat(handle.mode()).isEqualTo(LockMode.MUTEX);
			assertThat(this.events).containsExactly("a:start ledger", "b:start ledger", "a:acquired", "b:acquired");
			handle.close();
			assertThat(handle.isAcquired()).isFalse();
		}
		assertThat(this.events).endsWith("b:released", "a:released").hasSize(6);
	}

	@Test
	void reportsTimeoutsAndFailures() throws Exception {
		LockManager instrumented = instrument(recording("a"));
		LockRequest request = LockRequest.named("ledger").keys("1").timeout(Duration.ZERO).build();
		try (LockHandle held = this.manager.acquire(request); TestThreads threads = new TestThreads("other")) {
			CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
				try (LockHandle handle = instrumented.acquire(request)) {
					return handle.isAcquired();
				}
			}, threads);
			assertThat(other.get(10, TimeUnit.SECONDS)).isFalse();
		}
		LockRequest read = LockRequest.named("ledger").keys("2").mode(LockMode.READ).build();
		try (LockHandle reading = instrumented.acquire(read)) {
			assertThat(reading.isAcquired()).isTrue();
			assertThatExceptionOfType(LockException.class).isThrownBy(
					() -> instrumented.acquire(LockRequest.named("ledger").keys("2").mode(LockMode.WRITE).build()));
		}
		assertThat(this.events).contains("a:notAcquired", "a:failed LockException");
	}

	@Test
	void failingInstrumentationsNeverBreakTheLock() throws Exception {
		LockInstrumentation broken = (request) -> {
			throw new IllegalStateException("broken start");
		};
		LockInstrumentation brokenCallbacks = (request) -> new LockInstrumentation.Acquisition() {

			@Override
			public void acquired(LockContext lock) {
				throw new IllegalStateException("broken acquired");
			}

			@Override
			public void released() {
				throw new IllegalStateException("broken released");
			}

		};
		LockManager instrumented = instrument(broken, brokenCallbacks, recording("a"));
		LockRequest request = LockRequest.named("ledger").keys("1").build();
		try (LockHandle handle = instrumented.acquire(request)) {
			assertThat(handle.isAcquired()).isTrue();
		}
		assertThat(acquireInOtherThread(request)).isTrue();
		assertThat(this.events).containsExactly("a:start ledger", "a:acquired", "a:released");
	}

	@Test
	void aCloseRefusedToAnotherThreadReportsNoRelease() throws Exception {
		LockManager instrumented = instrument(recording("a"));
		try (LockHandle handle = instrumented.acquire(LockRequest.named("ledger").keys("1").build());
				TestThreads threads = new TestThreads("foreign")) {
			CompletableFuture<Void> foreignClose = CompletableFuture.runAsync(handle::close, threads);
			assertThat(foreignClose).failsWithin(Duration.ofSeconds(10));
			assertThat(handle.isAcquired()).isTrue();
			assertThat(this.events).doesNotContain("a:released");
		}
		assertThat(this.events).containsOnlyOnce("a:released");
	}

	@Test
	void unwrapsToTheManager() {
		LockManager twice = new InstrumentedLockManager(instrument(recording("a")), List.of());
		assertThat(InstrumentedLockManager.unwrap(twice)).isSameAs(this.manager);
		assertThat(InstrumentedLockManager.unwrap(this.manager)).isSameAs(this.manager);
	}

	@Test
	void theHandleDelegatesEveryLockHandleMethod() throws Exception {
		for (Method method : LockHandle.class.getMethods()) {
			if (Modifier.isStatic(method.getModifiers())) {
				continue;
			}
			Method declared = InstrumentedLockHandle.class.getMethod(method.getName(), method.getParameterTypes());
			assertThat(declared.getDeclaringClass()).as("%s is delegated", method.getName())
				.isEqualTo(InstrumentedLockHandle.class);
		}
	}

	private LockManager instrument(LockInstrumentation... instrumentations) {
		return new InstrumentedLockManager(this.manager, List.of(instrumentations));
	}

	private LockInstrumentation recording(String id) {
		return (request) -> {
			this.events.add(id + ":start " + request.name());
			return new LockInstrumentation.Acquisition() {

				@Override
				public void acquired(LockContext lock) {
					InstrumentedLockManagerTests.this.events.add(id + ":acquired");
				}

				@Override
				public void notAcquired() {
					InstrumentedLockManagerTests.this.events.add(id + ":notAcquired");
				}

				@Override
				public void failed(Throwable failure) {
					InstrumentedLockManagerTests.this.events.add(id + ":failed " + failure.getClass().getSimpleName());
				}

				@Override
				public void released() {
					InstrumentedLockManagerTests.this.events.add(id + ":released");
				}

			};
		};
	}

}
