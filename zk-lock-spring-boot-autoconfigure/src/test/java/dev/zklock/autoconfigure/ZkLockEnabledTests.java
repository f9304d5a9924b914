package dev.zklock.autoconfigure;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;

import dev.zklock.LockManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@code zk-lock.enabled}: the switch that turns zk-lock off in an application
 * that has the starter, for example in tests that do not lock. The runner loads every
 * zk-lock auto-configuration that the imports file lists, with the embedded server asked
 * for, so that a switched-off zk-lock is seen not to start anything.
 */
class ZkLockEnabledTests {

	private static final String ENABLED = "zk-lock.enabled";

	private final ClassLoader classLoader = getClass().getClassLoader();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(
				AutoConfigurationImportsTests.zkLockAutoConfigurations(this.classLoader).toArray(Class<?>[]::new)))
		.withPropertyValues("zk-lock.embedded.enabled=true", "zk-lock.hold-warning=1s");

	@Test
	void falseLeavesTheApplicationWithoutAnyZkLockBean() {
		this.runner.withPropertyValues(ENABLED + "=false").run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(ZkLockProperties.class)
				.doesNotHaveBean(CuratorFramework.class)
				.doesNotHaveBean(LockManager.class);
			assertThat(zkLockBeans(context)).isEmpty();
		});
	}

	@Test
	void zkLockIsOnWhenThePropertyIsNotSet() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(ZkLockClient.class);
			assertThat(context.getBeansOfType(LockManager.class)).isNotEmpty();
			assertThat(zkLockBeans(context)).isNotEmpty();
		});
	}

	@Test
	void everyAutoConfigurationIsSwitchedByTheProperty() {
		List<Class<?>> types = AutoConfigurationImportsTests.zkLockAutoConfigurations(this.classLoader);
		assertThat(types).hasSizeGreaterThan(5);
		for (Class<?> type : types) {
			boolean gated = MergedAnnotations.from(type)
				.stream(ConditionalOnBooleanProperty.class)
				.anyMatch(ZkLockEnabledTests::isEnabledSwitch);
			assertThat(gated).as("%s is @ConditionalOnBooleanProperty(%s, matchIfMissing = true)", type.getName(),
					ENABLED)
				.isTrue();
		}
	}

	private static boolean isEnabledSwitch(MergedAnnotation<ConditionalOnBooleanProperty> condition) {
		List<String> names = new ArrayList<>(Arrays.asList(condition.getStringArray("name")));
		names.addAll(Arrays.asList(condition.getStringArray("value")));
		return names.contains(ENABLED) && condition.getBoolean("matchIfMissing") && condition.getBoolean("havingValue");
	}

	private static List<String> zkLockBeans(ConfigurableApplicationContext context) {
		List<String> found = new ArrayList<>();
		for (String name : context.getBeanDefinitionNames()) {
			Class<?> type = context.getBeanFactory().getType(name, false);
			if (type != null && type.getName().startsWith("dev.zklock.")) {
				found.add(name + " (" + type.getName() + ")");
			}
		}
		return found;
	}

}
