package dev.zklock.metrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.LockTimeoutException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockMetricsAutoConfiguration;
import dev.zklock.core.OtherInstance;
import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.StoppableZooKeeper;
import dev.zklock.testsupport.TestThreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Meter names, tags and counts after real locked calls against ZooKeeper, with
 * another instance holding the lock where calls must contend.
 */
class LockMetricsTests {

	private static final Logger logger = LoggerFactory.getLogger(LockMetricsTests.class);

	@RegisterExtension
	static final ClassFixture<StoppableZooKeeper> server = ClassFixture.of(StoppableZooKeeper::start);

	private final String basePath = "/metrics-" + UUID.randomUUID();

	private final ApplicationContextRunner withoutRegistry = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class,
						ZkLockMetricsAutoConfiguration.class))
		.withBean(CuratorFramework.class, () -> server.get().newClient(30_000),
				(definition) -> definition.setDestroyMethodName("close"))
		.withUserConfiguration(ServiceConfiguration.class)
		.withPropertyValues("zk-lock.base-path=" + this.basePath);

	private final ApplicationContextRunner contextRunner = this.withoutRegistry.withBean(SimpleMeterRegistry.class,
			SimpleMeterRegistry::new);

	private final TestThreads threads = new TestThreads("holder");

	@AfterEach
	void stopThreads() {
		this.threads.close();
	}

	@Test
	void acquiredCallsRecordTheWaitAndTheHold() {
		this.contextRunner.run((context) -> {
			Stock stock = context.getBean(Stock.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			for (int i = 0; i < 3; i++) {
				assertThat(stock.reserve("a", 20)).isEqualTo("reserved a");
			}
			assertThat(acquire(registry, "mutex", "acquired").count()).isEqualTo(3);
			Timer held = registry.get("zk.lock.held").tags("name", "stock", "mode", "mutex").timer();
			assertThat(held.count()).isEqualTo(3);
			assertThat(held.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(60);
			assertThat(registry.get("zk.lock.active").tag("name", "stock").gauge().value()).isZero();
			assertThat(registry.get("zk.lock.waiting").tag("name", "stock").gauge().value()).isZero();
			assertThat(registry.find("zk.lock.acquire").tagKeys("key").meters()).isEmpty();
		});
	}

	@Test
	void timeoutSkipAndErrorAreOutcomes() {
		this.contextRunner.run((context) -> {
			Stock stock = context.getBean(Stock.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			try (OtherInstance other = new OtherInstance(server.get(), this.basePath);
					OtherInstance.Holder holder = other.hold(LockRequest.named("stock").keys("a").build(), "other")) {
				assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> stock.reserveOrFail("a"));
				assertThat(stock.reserveOrSkip("a")).isNull();
				LockTemplate template = context.getBean(LockTemplate.class);
				try (LockHandle handle = template
					.tryAcquire(LockRequest.named("stock").keys("a").timeout(Duration.ZERO).build())) {
					assertThat(handle.isAcquired()).isFalse();
				}
			}
			assertThatExceptionOfType(LockException.class).isThrownBy(() -> stock.readThenWrite("b"))
				.withMessageContaining("upgrading a read lock");
			Timer timeout = acquire(registry, "mutex", "timeout");
			assertThat(timeout.count()).isEqualTo(2);
			assertThat(timeout.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(100);
			assertThat(acquire(registry, "mutex", "skipped").count()).isOne();
			assertThat(acquire(registry, "read", "acquired").count()).isOne();
			assertThat(acquire(registry, "write", "error").count()).isOne();
			assertThat(registry.get("zk.lock.held").tags("name", "stock", "mode", "read").timer().count()).isOne();
			assertThat(registry.find("zk.lock.held").tags("mode", "mutex").timer()).isNull();
		});
	}

	@Test
	void interruptedWaitsAndTheGauges() {
		this.contextRunner.run((context) -> {
			Stock stock = context.getBean(Stock.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			CountDownLatch inside = new CountDownLatch(1);
			CountDownLatch leave = new CountDownLatch(1);
			CompletableFuture<String> holding = CompletableFuture.supplyAsync(() -> stock.holdUntil("a", inside, leave),
					this.threads);
			assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(registry.get("zk.lock.active").tag("name", "stock").gauge().value()).isEqualTo(1);
			AtomicReference<Throwable> failure = new AtomicReference<>();
			Thread waiter = new Thread(() -> {
				try {
					stock.reserve("a", 0);
				}
				catch (Throwable ex) {
					failure.set(ex);
				}
			}, "waiter");
			waiter.start();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> registry.get("zk.lock.waiting").tag("name", "stock").gauge().value() == 1);
			waiter.interrupt();
			waiter.join(10_000);
			assertThat(failure.get()).isInstanceOf(LockException.class);
			leave.countDown();
			assertThat(holding.get(10, TimeUnit.SECONDS)).isEqualTo("held a");
			assertThat(acquire(registry, "mutex", "interrupted").count()).isOne();
			assertThat(registry.get("zk.lock.waiting").tag("name", "stock").gauge().value()).isZero();
			assertThat(registry.get("zk.lock.active").tag("name", "stock").gauge().value()).isZero();
		});
	}

	@Test
	void tenThousandKeysAddNoMeters() {
		this.contextRunner.run((context) -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			template.execute(LockRequest.named("orders").keys("0").build(), () -> "first");
			Set<Meter.Id> afterOneKey = meterIds(registry);
			long start = System.nanoTime();
			int threads = 4;
			ExecutorService executor = Executors.newFixedThreadPool(threads);
			try {
				List<CompletableFuture<Void>> workers = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					int first = t;
					workers.add(CompletableFuture.runAsync(() -> {
						for (int i = 1 + first; i < 10_000; i += threads) {
							template.execute(LockRequest.named("orders").keys("order-" + i).build(), () -> "done");
						}
					}, executor));
				}
				CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
			}
			finally {
				executor.shutdownNow();
			}
			Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
			assertThat(meterIds(registry)).isEqualTo(afterOneKey);
			assertThat(acquire(registry, "orders", "mutex", "acquired").count()).isEqualTo(10_000);
			assertThat(registry.getMeters()).hasSize(afterOneKey.size());
			logger.info("10,000 keys of one name: {} meters in all, {} ms for 9,999 locked calls", afterOneKey.size(),
					elapsed.toMillis());
		});
	}

	@Test
	void aFailingMeterRegistryNeverBreaksTheCall() {
		this.withoutRegistry.withBean(MeterRegistry.class, LockMetricsTests::failingRegistry).run((context) -> {
				Stock stock = context.getBean(Stock.class);
				assertThat(stock.reserve("a", 0)).isEqualTo("reserved a");
				assertThat(context.getBean(LockTemplate.class).execute(LockRequest.named("stock").keys("a").build(),
						() -> "template")).isEqualTo("template");
				try (OtherInstance other = new OtherInstance(server.get(), this.basePath);
						OtherInstance.Holder holder = other.hold(
								LockRequest.named("stock").keys("a").timeout(Duration.ZERO).build(), "other")) {
					assertThat(holder).isNotNull();
				}
			});
	}

	static MeterRegistry failingRegistry() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		registry.config().meterFilter(new MeterFilter() {

			@Override
			public Meter.Id map(Meter.Id id) {
				if (id.getName().startsWith("zk.lock")) {
					throw new IllegalStateException("Meter registry is broken");
				}
				return id;
			}

		});
		return registry;
	}

	private static Timer acquire(MeterRegistry registry, String mode, String outcome) {
		return acquire(registry, "stock", mode, outcome);
	}

	private static Timer acquire(MeterRegistry registry, String name, String mode, String outcome) {
		return registry.get("zk.lock.acquire").tags("name", name, "mode", mode, "outcome", outcome).timer();
	}

	private static Set<Meter.Id> meterIds(MeterRegistry registry) {
		return registry.getMeters().stream().map(Meter::getId).collect(Collectors.toSet());
	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConfiguration {

		@Bean
		Stock stock(Writer writer) {
			return new Stock(writer);
		}

		@Bean
		Writer writer() {
			return new Writer();
		}

	}

	static class Stock {

		private final Writer writer;

		Stock(Writer writer) {
			this.writer = writer;
		}

		@DistributedLock(name = "stock", key = "#sku", timeout = "10s")
		public String reserve(String sku, long workMillis) throws InterruptedException {
			Thread.sleep(workMillis);
			return "reserved " + sku;
		}

		@DistributedLock(name = "stock", key = "#sku", timeout = "100ms")
		public String reserveOrFail(String sku) {
			return "reserved " + sku;
		}

		@DistributedLock(name = "stock", key = "#sku", timeout = "100ms", onTimeout = OnTimeout.SKIP)
		public String reserveOrSkip(String sku) {
			return "reserved " + sku;
		}

		@DistributedLock(name = "stock", key = "#sku", mode = LockMode.READ)
		public String readThenWrite(String sku) {
			return this.writer.write(sku);
		}

		@DistributedLock(name = "stock", key = "#sku")
		public String holdUntil(String sku, CountDownLatch inside, CountDownLatch leave) {
			inside.countDown();
			try {
				leave.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return "held " + sku;
		}

	}

	static class Writer {

		@DistributedLock(name = "stock", key = "#sku", mode = LockMode.WRITE)
		public String write(String sku) {
			return "written " + sku;
		}

	}

}
