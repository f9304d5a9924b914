package dev.zklock.metrics;

import java.lang.ref.Reference;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.aop.HotKeyRound;
import dev.zklock.autoconfigure.ZkLockMetricsAutoConfiguration;
import dev.zklock.testsupport.TestThreads;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code zk.lock.handoffs} counts the grants of locks with local hand-off by
 * {@code kind}, and a failing registry or read never fails a locked call.
 */
class LocalHandoffMetricsTests {

	private static final int WAITERS = 4;

	private final ApplicationContextRunner contextRunner = HotKeyRound.contextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockMetricsAutoConfiguration.class));

	private final TestThreads threads = new TestThreads("hot-caller");

	@AfterEach
	void stopThreads() {
		this.threads.close();
	}

	@Test
	void countsLocalPassesAndGrantsThroughZooKeeper() {
		this.contextRunner.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(context).hasSingleBean(LocalHandoffMetrics.class);
			assertThat(count(registry, "local")).isZero();
			assertThat(count(registry, "zookeeper")).isZero();
			HotKeyRound.start(context, HotKeyRound.blocking(context, this.threads, "k"), WAITERS).finish();
			HotKeyRound.start(context, HotKeyRound.blocking(context, this.threads, "k"), WAITERS).finish();
			assertThat(count(registry, "local")).isEqualTo(2 * WAITERS);
			assertThat(count(registry, "zookeeper")).isEqualTo(2);
		});
	}

	@Test
	void aRegistryThatRefusesTheCountersFailsNoLockedCall() {
		SimpleMeterRegistry refusing = new SimpleMeterRegistry();
		refusing.config().meterFilter(new MeterFilter() {

			@Override
			public Meter.Id map(Meter.Id id) {
				if (id.getName().equals(LocalHandoffMetrics.HANDOFFS)) {
					throw new IllegalStateException("registry refuses " + id.getName());
				}
				return id;
			}

		});
		this.contextRunner.withBean(MeterRegistry.class, () -> refusing).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(LocalHandoffMetrics.class);
			List<Long> tokens = HotKeyRound.start(context, HotKeyRound.blocking(context, this.threads, "k"), WAITERS)
				.finish();
			assertThat(tokens).hasSize(WAITERS + 1).containsOnly(tokens.get(0));
			assertThat(refusing.find(LocalHandoffMetrics.HANDOFFS).meters()).isEmpty();
		});
	}

	@Test
	void aFailingReadIsNotANumberRatherThanAnError() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		AtomicBoolean failing = new AtomicBoolean(true);
		LocalHandoffMetrics metrics = new LocalHandoffMetrics(registry, () -> {
			if (failing.get()) {
				throw new IllegalStateException("no lock manager yet");
			}
			return List.of();
		});
		assertThat(count(registry, "local")).isNaN();
		assertThat(count(registry, "zookeeper")).isNaN();
		failing.set(false);
		assertThat(count(registry, "local")).as("read again once it works").isZero();
		Reference.reachabilityFence(metrics);
	}

	private static double count(MeterRegistry registry, String kind) {
		FunctionCounter counter = registry.get(LocalHandoffMetrics.HANDOFFS).tag("kind", kind).functionCounter();
		return counter.count();
	}

}
