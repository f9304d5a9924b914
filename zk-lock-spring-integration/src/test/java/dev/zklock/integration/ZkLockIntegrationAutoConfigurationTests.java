package dev.zklock.integration;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import dev.zklock.aop.TestZooKeeper;
import dev.zklock.integration.autoconfigure.ZkLockIntegrationAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the Spring Integration registry is defined: only when asked for, and that an
 * application without Spring Integration starts exactly as it does without this
 * module.
 */
class ZkLockIntegrationAutoConfigurationTests {

	private static final String ENABLED = "zk-lock.integration.lock-registry.enabled=true";

	private final ApplicationContextRunner runner = TestZooKeeper.contextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockIntegrationAutoConfiguration.class));

	@Test
	void theRegistryIsDefinedOnlyWhenEnabled() {
		this.runner.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockRegistry.class));
		this.runner.withPropertyValues(ENABLED, "zk-lock.integration.lock-registry.name=orders")
			.run((context) -> assertThat(context).getBean(LockRegistry.class)
				.isInstanceOfSatisfying(ZkLockRegistry.class,
						(registry) -> assertThat(registry.getName()).isEqualTo("orders")));
	}

	@Test
	void aRegistryOfTheApplicationsOwnIsKept() {
		DefaultLockRegistry own = new DefaultLockRegistry();
		this.runner.withPropertyValues(ENABLED)
			.withBean(LockRegistry.class, () -> own)
			.run((context) -> assertThat(context).hasSingleBean(LockRegistry.class)
				.getBean(LockRegistry.class)
				.isSameAs(own));
	}

	@Test
	void withoutSpringIntegrationTheContextHasExactlyTheBeansOfZkLockAlone() {
		TestZooKeeper.contextRunner().run((plain) -> this.runner.withPropertyValues(ENABLED)
			.withClassLoader(new FilteredClassLoader(LockRegistry.class))
			.run((filtered) -> {
				assertThat(filtered).hasNotFailed().doesNotHaveBean(ZkLockRegistry.class);
				assertThat(Arrays.stream(filtered.getBeanDefinitionNames()).sorted())
					.containsExactlyElementsOf(Arrays.stream(plain.getBeanDefinitionNames()).sorted().toList());
			}));
	}

}
