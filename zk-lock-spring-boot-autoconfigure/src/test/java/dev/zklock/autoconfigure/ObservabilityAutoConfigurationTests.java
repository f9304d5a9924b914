package dev.zklock.autoconfigure;

import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.actuate.LocksEndpoint;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.LockManager;
import dev.zklock.health.ZkLockHealthIndicator;
import dev.zklock.metrics.LockMetrics;
import dev.zklock.metrics.LockObservations;
import dev.zklock.metrics.ZooKeeperConnectionMetrics;
import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.StoppableZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The health, metrics, observation and endpoint auto-configurations: present with
 * Actuator and Micrometer, absent without them, each switchable and replaceable.
 */
class ObservabilityAutoConfigurationTests {

	private static final AutoConfigurations ZK_LOCK = AutoConfigurations.of(ZkLockAutoConfiguration.class,
			DistributedLockAutoConfiguration.class, ZkLockHealthContributorAutoConfiguration.class,
			ZkLockMetricsAutoConfiguration.class, ZkLockObservationAutoConfiguration.class,
			LocksEndpointAutoConfiguration.class, LockHoldWarningAutoConfiguration.class);

	private static final AutoConfigurations ACTUATOR = AutoConfigurations.of(MetricsAutoConfiguration.class,
			CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
			ObservationAutoConfiguration.class, HealthContributorAutoConfiguration.class,
			HealthContributorRegistryAutoConfiguration.class, EndpointAutoConfiguration.class);

	@RegisterExtension
	static final ClassFixture<StoppableZooKeeper> server = ClassFixture.of(StoppableZooKeeper::start);

	private final ApplicationContextRunner withoutActuator = new ApplicationContextRunner().withConfiguration(ZK_LOCK)
		.withPropertyValues("zk-lock.connect-string=" + server.get().connectString(),
				"zk-lock.base-path=/auto-" + UUID.randomUUID());

	private final ApplicationContextRunner contextRunner = this.withoutActuator.withConfiguration(ACTUATOR);

	@Test
	void withActuatorAndMicrometerEverythingIsConfigured() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(ZkLockHealthIndicator.class)
				.hasBean("zkLockHealthIndicator")
				.hasSingleBean(LockMetrics.class)
				.hasSingleBean(ZooKeeperConnectionMetrics.class)
				.hasSingleBean(LockObservations.class);
			assertThat(context.getBean(LockManager.class)).isInstanceOf(InstrumentedLockManager.class);
			assertThat(InstrumentedLockManager.unwrap(context.getBean(LockManager.class)))
				.isInstanceOf(CuratorLockManager.class);
			context.getBean(LockTemplate.class).execute(LockRequest.named("auto").build(), () -> "ran");
			assertThat(context.getBean(MeterRegistry.class).get("zk.lock.held").timer().count()).isOne();
		});
	}

	@Test
	void withoutActuatorAndMicrometerTheContextStartsAndNothingIsConfigured() {
		this.withoutActuator
			.withClassLoader(new FilteredClassLoader("io.micrometer", "org.springframework.boot.actuate",
					"org.springframework.boot.health", "org.springframework.boot.micrometer"))
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean("zkLockHealthIndicator")
					.doesNotHaveBean("zkLockMetrics")
					.doesNotHaveBean("zkLockObservations")
					.doesNotHaveBean("locksEndpoint")
					.doesNotHaveBean("zkLockInstrumentationPostProcessor");
				assertThat(context.getBean(LockManager.class)).isInstanceOf(CuratorLockManager.class);
				assertThat(context.getBean(LockTemplate.class).execute(LockRequest.named("plain").build(), () -> "ran"))
					.isEqualTo("ran");
			});
	}

	@Test
	void theHealthIndicatorCanBeTurnedOff() {
		this.contextRunner.withPropertyValues("management.health.zklock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ZkLockHealthIndicator.class)
				.hasSingleBean(LockMetrics.class));
		this.contextRunner.withPropertyValues("management.health.defaults.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ZkLockHealthIndicator.class));
	}

	@Test
	void userBeansReplaceZkLocksOwn() {
		this.contextRunner.withUserConfiguration(UserBeans.class).run((context) -> {
			assertThat(context).hasSingleBean(LockMetrics.class).hasBean("customMetrics");
			assertThat(context).hasSingleBean(ZkLockHealthIndicator.class).hasBean("zkLockHealthIndicator");
			assertThat(context.getBean(LockMetrics.class)).isSameAs(context.getBean("customMetrics"));
		});
	}

	@Test
	void theEndpointNeedsToBeExposed() {
		WebApplicationContextRunner web = new WebApplicationContextRunner().withConfiguration(ZK_LOCK)
			.withConfiguration(ACTUATOR)
			.withConfiguration(AutoConfigurations.of(WebEndpointAutoConfiguration.class))
			.withPropertyValues("zk-lock.connect-string=" + server.get().connectString());
		web.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
		web.withPropertyValues("management.endpoints.web.exposure.include=locks")
			.run((context) -> assertThat(context).hasSingleBean(LocksEndpoint.class));
		web.withPropertyValues("management.endpoints.web.exposure.include=locks", "management.endpoint.locks.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class UserBeans {

		@Bean
		LockMetrics customMetrics(MeterRegistry registry) {
			return new LockMetrics(registry);
		}

	}

}
