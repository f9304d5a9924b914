package dev.zklock.autoconfigure;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks every zk-lock class listed in
 * {@code META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports},
 * including those added later: each is a final {@link AutoConfiguration @AutoConfiguration}
 * whose {@link Bean @Bean} methods, nested configurations included, all back off with
 * {@link ConditionalOnMissingBean @ConditionalOnMissingBean}.
 */
class AutoConfigurationImportsTests {

	private final ClassLoader classLoader = getClass().getClassLoader();

	@Test
	void listsTheZkLockAutoConfigurations() {
		assertThat(zkLockAutoConfigurations(this.classLoader)).contains(ZkLockAutoConfiguration.class,
				EmbeddedZooKeeperAutoConfiguration.class);
	}

	@Test
	void everyAutoConfigurationIsFinalAndAnnotated() {
		for (Class<?> type : zkLockAutoConfigurations(this.classLoader)) {
			assertThat(Modifier.isFinal(type.getModifiers())).as("%s is final", type.getName()).isTrue();
			assertThat(MergedAnnotations.from(type).isPresent(AutoConfiguration.class))
				.as("%s is @AutoConfiguration", type.getName())
				.isTrue();
		}
	}

	@Test
	void everyBeanMethodIsConditionalOnMissingBean() {
		List<String> beanMethods = new ArrayList<>();
		List<String> unconditional = new ArrayList<>();
		for (Class<?> type : zkLockAutoConfigurations(this.classLoader)) {
			collectBeanMethods(type, beanMethods, unconditional);
		}
		assertThat(beanMethods).isNotEmpty();
		assertThat(unconditional).as("@Bean methods without @ConditionalOnMissingBean").isEmpty();
	}

	private void collectBeanMethods(Class<?> type, List<String> beanMethods, List<String> unconditional) {
		for (Method method : type.getDeclaredMethods()) {
			MergedAnnotations annotations = MergedAnnotations.from(method);
			if (annotations.isPresent(Bean.class)) {
				String name = type.getName() + "." + method.getName();
				beanMethods.add(name);
				if (!annotations.isPresent(ConditionalOnMissingBean.class)) {
					unconditional.add(name);
				}
			}
		}
		for (Class<?> nested : type.getDeclaredClasses()) {
			collectBeanMethods(nested, beanMethods, unconditional);
		}
	}

	/**
	 * The zk-lock classes that
	 * {@code META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports}
	 * lists on the given class path, in their order there.
	 * @param classLoader where to look for the imports files
	 * @return the auto-configuration classes
	 */
	static List<Class<?>> zkLockAutoConfigurations(ClassLoader classLoader) {
		List<Class<?>> types = new ArrayList<>();
		for (String name : ImportCandidates.load(AutoConfiguration.class, classLoader)) {
			if (name.startsWith("dev.zklock.")) {
				types.add(ClassUtils.resolveClassName(name, classLoader));
			}
		}
		return types;
	}

}
