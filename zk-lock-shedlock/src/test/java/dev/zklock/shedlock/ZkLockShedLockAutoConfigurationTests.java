package dev.zklock.shedlock;

import java.util.Arrays;
import java.util.Optional;

import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.aop.TestZooKeeper;
import dev.zklock.shedlock.autoconfigure.ZkLockShedLockAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the ShedLock provider is defined, and that an application without ShedLock
 * starts exactly as it does without this module.
 */
class ZkLockShedLockAutoConfigurationTests {

	private final ApplicationContextRunner runner = TestZooKeeper.contextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockShedLockAutoConfiguration.class));

	@Test
	void shedLockOnTheClassPathGetsTheProvider() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(LockProvider.class)
			.getBean(LockProvider.class)
			.isInstanceOf(ZkLockProvider.class));
	}

	@Test
	void aProviderOfTheApplicationsOwnIsKept() {
		LockProvider own = (configuration) -> Optional.empty();
		this.runner.withBean(LockProvider.class, () -> own)
			.run((context) -> assertThat(context).hasSingleBean(LockProvider.class)
				.getBean(LockProvider.class)
				.isSameAs(own));
	}

	@Test
	void withoutShedLockTheContextHasExactlyTheBeansOfZkLockAlone() {
		TestZooKeeper.contextRunner().run((plain) -> this.runner
			.withClassLoader(new FilteredClassLoader(LockProvider.class))
			.run((filtered) -> {
				assertThat(filtered).hasNotFailed().doesNotHaveBean(ZkLockProvider.class);
				assertThat(Arrays.stream(filtered.getBeanDefinitionNames()).sorted())
					.containsExactlyElementsOf(Arrays.stream(plain.getBeanDefinitionNames()).sorted().toList());
			}));
	}

	@Test
	void withoutZkLocksEngineThereIsNoProvider() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZkLockShedLockAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockProvider.class));
	}

}
