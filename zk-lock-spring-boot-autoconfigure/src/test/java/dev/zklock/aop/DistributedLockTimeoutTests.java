package dev.zklock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.zklock.LockException;
import dev.zklock.LockRequest;
import dev.zklock.LockTimeoutException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.LockManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What annotated methods do when their lock is held elsewhere: throw, skip, call
 * the fallback, try once, or wait for a timeout given by a placeholder.
 */
class DistributedLockTimeoutTests {

	private static final String LOCK = "timeouts";

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withUserConfiguration(ServiceConfiguration.class)
		.withPropertyValues("zk-lock.default-timeout=20s", "test.lock-timeout=150ms", "test.contended-timeout=100ms");

	@Test
	void runsTheMethodWhenTheLockIsFree() {
		// a free lock must not depend on being granted within the contended cases' 100 ms
		this.contextRunner.withPropertyValues("test.contended-timeout=10s").run((context) -> {
			ContendedService service = context.getBean(ContendedService.class);
			assertThat(service.throwing("k")).isEqualTo("ran k");
			assertThat(service.skippingOptional("k")).contains("ran k");
			assertThat(service.withFallback("k")).isEqualTo("ran k");
			assertThat(service.calls()).isEqualTo(3);
		});
	}

	@Test
	void throwsLockTimeoutExceptionNamingTheLock() {
		this.contextRunner.run((context) -> {
			ContendedService service = context.getBean(ContendedService.class);
			try (HeldLock held = HeldLock.hold(context.getBean(LockManager.class), LOCK, "k")) {
				assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> service.throwing("k"))
					.withMessageContaining("Lock 'timeouts'")
					.withMessageContaining("[k]")
					.withMessageContaining("PT0.1S")
					.withMessageContaining("ContendedService.throwing(String)");
				assertThat(service.throwing("other")).isEqualTo("ran other");
			}
			assertThat(service.calls()).isEqualTo(1);
		});
	}

	@Test
	void skipReturnsWhatTheReturnTypeAsksForWithoutRunningTheMethod() {
		this.contextRunner.run((context) -> {
			ContendedService service = context.getBean(ContendedService.class);
			try (HeldLock held = HeldLock.hold(context.getBean(LockManager.class), LOCK, "k")) {
				assertThat(service.skippingString("k")).isNull();
				assertThat(service.skippingOptional("k")).isEmpty();
				assertThat(service.skippingList("k")).isEmpty();
				assertThat(service.skippingSet("k")).isEmpty();
				assertThat(service.skippingMap("k")).isEmpty();
				service.skippingVoid("k");
			}
			assertThat(service.calls()).isEqualTo(0);
		});
	}

	@Test
	void fallbackReceivesTheArgumentsAndTheCause() {
		this.contextRunner.run((context) -> {
			ContendedService service = context.getBean(ContendedService.class);
			try (HeldLock held = HeldLock.hold(context.getBean(LockManager.class), LOCK, "k")) {
				assertThat(service.withFallback("k")).isEqualTo("fallback k");
				assertThat(service.fallbackCause()).isInstanceOf(LockTimeoutException.class)
					.hasMessageContaining("Lock 'timeouts'");
				assertThat(service.withPlainFallback("k", 7)).isEqualTo(-7);
			}
			assertThat(service.calls()).isEqualTo(0);
		});
	}

	@Test
	void failedAcquisitionCallsTheFallbackOrPassesTheException() {
		this.contextRunner.run((context) -> {
			ContendedService service = context.getBean(ContendedService.class);
			// The core refuses to wait in an interrupted thread and throws LockException
			Thread.currentThread().interrupt();
			try {
				assertThat(service.withFallback("k")).isEqualTo("fallback k");
				assertThat(service.fallbackCause()).isExactlyInstanceOf(LockException.class)
					.hasMessageContaining("interrupted");
				assertThatExceptionOfType(LockException.class).isThrownBy(() -> service.throwing("k"))
					.withMessageContaining("interrupted");
			}
			finally {
				Thread.interrupted();
			}
			assertThat(service.calls()).isZero();
		});
	}

	@Test
	void listenersHearOfSkippedCallsAndFallbacks() {
		this.contextRunner.withBean(RecordingListener.class).run((context) -> {
			ContendedService service = context.getBean(ContendedService.class);
			RecordingListener listener = context.getBean(RecordingListener.class);
			try (HeldLock held = HeldLock.hold(context.getBean(LockManager.class), LOCK, "k")) {
				service.skippingVoid("k");
				service.withFallback("k");
			}
			assertThat(listener.events).containsExactly("skipped timeouts [k] skippingVoid",
					"fallback timeouts [k] withFallback LockTimeoutException");
		});
	}

	@Test
	void zeroTimeoutTriesOnceWithoutWaiting() {
		this.contextRunner.run((context) -> {
			ContendedService service = context.getBean(ContendedService.class);
			try (HeldLock held = HeldLock.hold(context.getBean(LockManager.class), LOCK, "k")) {
				long start = System.nanoTime();
				assertThat(service.tryOnce("k")).isEmpty();
				// The default timeout is 20s: returning well under it means no wait
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			}
			assertThat(service.tryOnce("k")).contains("ran k");
		});
	}

	@Test
	void placeholderTimeoutIsResolvedFromTheEnvironment() {
		this.contextRunner.run((context) -> {
			ContendedService service = context.getBean(ContendedService.class);
			try (HeldLock held = HeldLock.hold(context.getBean(LockManager.class), LOCK, "k")) {
				long start = System.nanoTime();
				assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> service.fromPlaceholder("k"))
					.withMessageContaining("PT0.15S");
				Duration waited = Duration.ofNanos(System.nanoTime() - start);
				assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(150)).isLessThan(Duration.ofSeconds(5));
			}
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConfiguration {

		@Bean
		ContendedService contendedService() {
			return new ContendedService();
		}

	}

	static class RecordingListener implements LockInterceptionListener {

		final List<String> events = new CopyOnWriteArrayList<>();

		@Override
		public void skipped(LockRequest request, Method method) {
			this.events.add("skipped " + request.name() + " " + request.keys() + " " + method.getName());
		}

		@Override
		public void fallback(LockRequest request, Method method, LockException cause) {
			this.events.add("fallback " + request.name() + " " + request.keys() + " " + method.getName() + " "
					+ cause.getClass().getSimpleName());
		}

	}

	static class ContendedService {

		final AtomicInteger calls = new AtomicInteger();

		final AtomicReference<LockException> fallbackCause = new AtomicReference<>();

		int calls() {
			return this.calls.get();
		}

		LockException fallbackCause() {
			return this.fallbackCause.get();
		}

		@DistributedLock(name = LOCK, key = "#id", timeout = "${test.contended-timeout}")
		public String throwing(String id) {
			return run(id);
		}

		@DistributedLock(name = LOCK, key = "#id", timeout = "${test.contended-timeout}", onTimeout = OnTimeout.SKIP)
		public String skippingString(String id) {
			return run(id);
		}

		@DistributedLock(name = LOCK, key = "#id", timeout = "${test.contended-timeout}", onTimeout = OnTimeout.SKIP)
		public Optional<String> skippingOptional(String id) {
			return Optional.of(run(id));
		}

		@DistributedLock(name = LOCK, key = "#id", timeout = "${test.contended-timeout}", onTimeout = OnTimeout.SKIP)
		public List<String> skippingList(String id) {
			return List.of(run(id));
		}

		@DistributedLock(name = LOCK, key = "#id", timeout = "${test.contended-timeout}", onTimeout = OnTimeout.SKIP)
		public Set<String> skippingSet(String id) {
			return Set.of(run(id));
		}

		@DistributedLock(name = LOCK, key = "#id", timeout = "${test.contended-timeout}", onTimeout = OnTimeout.SKIP)
		public Map<String, String> skippingMap(String id) {
			return Map.of(id, run(id));
		}

		@DistributedLock(name = LOCK, key = "#id", timeout = "${test.contended-timeout}", onTimeout = OnTimeout.SKIP)
		public void skippingVoid(String id) {
			run(id);
		}

		@DistributedLock(name = LOCK, key = "#id", timeout = "${test.contended-timeout}", fallbackMethod = "fallbackWithCause")
		public String withFallback(String id) {
			return run(id);
		}

		String fallbackWithCause(String id, LockException cause) {
			this.fallbackCause.set(cause);
			return "fallback " + id;
		}

		@DistributedLock(name = LOCK, key = "#id", timeout = "${test.contended-timeout}", fallbackMethod = "plainFallback")
		public Integer withPlainFallback(String id, int amount) {
			run(id);
			return amount;
		}

		private int plainFallback(String id, int amount) {
			return -amount;
		}

		@DistributedLock(name = LOCK, key = "#id", timeout = "0", onTimeout = OnTimeout.SKIP)
		public Optional<String> tryOnce(String id) {
			return Optional.of(run(id));
		}

		@DistributedLock(name = LOCK, key = "#id", timeout = "${test.lock-timeout}")
		public String fromPlaceholder(String id) {
			return run(id);
		}

		private String run(String id) {
			this.calls.incrementAndGet();
			return "ran " + id;
		}

	}

}
