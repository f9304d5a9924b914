package dev.zklock.metrics;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import dev.zklock.LockException;
import dev.zklock.LockTimeoutException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.autoconfigure.ZkLockMetricsAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockObservationAutoConfiguration;
import dev.zklock.core.LockPaths;
import dev.zklock.metrics.LockObservationsTests.RecordingHandler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Asynchronous {@code @DistributedLock} calls, against a real ZooKeeper server, feed
 * the same meters and observations as synchronous ones: every outcome, the hold,
 * the gauges, and an observation stopped on another thread without a scope.
 */
class AsyncObservabilityTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final ExecutorService gates = Executors.newFixedThreadPool(2);

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withConfiguration(
				AutoConfigurations.of(ZkLockMetricsAutoConfiguration.class, ZkLockObservationAutoConfiguration.class))
		.withUserConfiguration(LockObservationsTests.ObservationConfiguration.class)
		.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(Payments.class)
		.withPropertyValues("zk-lock.default-timeout=30s");

	@AfterEach
	void stopGates() {
		this.gates.shutdownNow();
	}

	@Test
	void asyncCallsAreMeteredWithEveryOutcomeAndTheGaugesReturnToZero() {
		this.contextRunner.run((context) -> {
			Payments payments = context.getBean(Payments.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			for (int i = 0; i < 3; i++) {
				assertThat(payments.pay("p-1", CompletableFuture.completedFuture("paid")).get(10, TimeUnit.SECONDS))
					.isEqualTo("paid");
			}
			assertThat(payments.payMono("p-1").block(WAIT)).isEqualTo("mono");

			CompletableFuture<String> gate = new CompletableFuture<>();
			CompletableFuture<String> holder = payments.pay("p-1", gate);
			assertThat(payments.entered().await(10, TimeUnit.SECONDS)).isTrue();
			await().atMost(WAIT).until(() -> gauge(meters, LockMetrics.ACTIVE) == 1);
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> payments.tryOnce("p-1").get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockTimeoutException.class);
			assertThat(payments.skipping("p-1").get(10, TimeUnit.SECONDS)).isNull();
			CompletableFuture<String> waiting = payments.pay("p-1", new CompletableFuture<>());
			await().atMost(WAIT).until(() -> gauge(meters, LockMetrics.WAITING) == 1);
			waiting.cancel(true);
			await().atMost(WAIT).until(() -> gauge(meters, LockMetrics.WAITING) == 0);
			this.gates.execute(() -> gate.complete("late"));
			assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("late");

			breakLockPath(context, "broken");
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> payments.broken("p-1").get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockException.class);

			await().atMost(WAIT).until(() -> gauge(meters, LockMetrics.ACTIVE) == 0);
			assertThat(gauge(meters, LockMetrics.WAITING)).isZero();
			assertThat(acquires(meters, "payments", "acquired")).isEqualTo(5);
			assertThat(acquires(meters, "payments", "timeout")).isOne();
			assertThat(acquires(meters, "payments", "skipped")).isOne();
			assertThat(acquires(meters, "payments", "interrupted")).isOne();
			assertThat(acquires(meters, "broken", "error")).isOne();
			assertThat(meters.get(LockMetrics.HELD).tags("name", "payments", "mode", "mutex").timer().count())
				.isEqualTo(5);
			assertThat(meters.get(LockMetrics.ACTIVE).tag("name", "broken").gauge().value()).isZero();
			assertThat(meters.get(LockMetrics.WAITING).tag("name", "broken").gauge().value()).isZero();
		});
	}

	@Test
	void eachAsyncCallIsOneObservationStoppedWithoutAThreadScope() {
		this.contextRunner.run((context) -> {
			Payments payments = context.getBean(Payments.class);
			RecordingHandler handler = context.getBean(RecordingHandler.class);
			ObservationRegistry registry = context.getBean(ObservationRegistry.class);
			CompletableFuture<String> gate = new CompletableFuture<>();
			CompletableFuture<String> holder = payments.pay("p-2", gate);
			assertThat(payments.entered().await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(handler.started).hasSize(1);
			assertThat(handler.stopped).isEmpty();
			assertThat(registry.getCurrentObservation()).isNull();
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> payments.tryOnce("p-2").get(10, TimeUnit.SECONDS));
			this.gates.execute(() -> gate.complete("done"));
			assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("done");
			await().atMost(WAIT).until(() -> handler.stopped.size() == 2);
			assertThat(handler.stopped).extracting((observed) -> observed.getName())
				.containsOnly(LockObservations.OBSERVATION_NAME);
			assertThat(handler.stopped).extracting((observed) -> key(observed, "zk.lock.outcome"))
				.containsExactly("timeout", "acquired");
			assertThat(key(handler.stopped.get(1), "zk.lock.name")).isEqualTo("payments");
			assertThat(key(handler.stopped.get(1), "zk.lock.mode")).isEqualTo("mutex");
			assertThat(handler.stopped.get(0).getError()).isNull();
			assertThat(handler.scopesOpened).isEmpty();
			assertThat(registry.getCurrentObservation()).isNull();
		});
	}

	private static void breakLockPath(ApplicationContext context, String name) throws Exception {
		// ZooKeeper refuses children under an ephemeral node: the acquisition fails
		String path = context.getEnvironment().getProperty("zk-lock.base-path") + "/" + LockPaths.encode(name);
		context.getBean(CuratorFramework.class)
			.create()
			.creatingParentsIfNeeded()
			.withMode(CreateMode.EPHEMERAL)
			.forPath(path);
	}

	private static double gauge(MeterRegistry meters, String name) {
		return meters.get(name).tag("name", "payments").gauge().value();
	}

	private static long acquires(MeterRegistry meters, String name, String outcome) {
		return meters.get(LockMetrics.ACQUIRE).tags("name", name, "mode", "mutex", "outcome", outcome).timer().count();
	}

	private static String key(Observation.Context observed, String key) {
		return observed.getLowCardinalityKeyValue(key).getValue();
	}

	static class Payments {

		final CountDownLatch entered = new CountDownLatch(1);

		public CountDownLatch entered() {
			return this.entered;
		}

		@DistributedLock(name = "payments", key = "#key")
		public CompletableFuture<String> pay(String key, CompletableFuture<String> gate) {
			this.entered.countDown();
			return gate;
		}

		@DistributedLock(name = "payments", key = "#key")
		public Mono<String> payMono(String key) {
			return Mono.just("mono");
		}

		@DistributedLock(name = "payments", key = "#key", timeout = "0")
		public CompletableFuture<String> tryOnce(String key) {
			return CompletableFuture.completedFuture("got it");
		}

		@DistributedLock(name = "payments", key = "#key", timeout = "100ms", onTimeout = OnTimeout.SKIP)
		public CompletableFuture<String> skipping(String key) {
			return CompletableFuture.completedFuture("ran");
		}

		@DistributedLock(name = "broken", key = "#key")
		public CompletableFuture<String> broken(String key) {
			return CompletableFuture.completedFuture("never");
		}

	}

}
