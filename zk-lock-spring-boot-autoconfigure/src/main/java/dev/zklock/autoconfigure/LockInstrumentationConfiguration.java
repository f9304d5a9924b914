package dev.zklock.autoconfigure;

import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.core.LockInstrumentation;
import dev.zklock.LockManager;

/**
 * Decorates the application's {@link LockManager} with every
 * {@link LockInstrumentation} bean, and hands the same beans to its
 * {@link AsyncLockManager}. Imported by the metrics and observation
 * auto-configurations.
 */
@Configuration(proxyBeanMethods = false)
final class LockInstrumentationConfiguration {

	@Bean
	@ConditionalOnMissingBean
	static LockInstrumentationPostProcessor zkLockInstrumentationPostProcessor(
			ObjectProvider<LockInstrumentation> instrumentations) {
		return new LockInstrumentationPostProcessor(instrumentations);
	}

	/**
	 * Wraps each {@link LockManager} bean in an {@link InstrumentedLockManager}, and
	 * sets the instrumentations of each {@link AsyncLockManager} bean.
	 */
	static final class LockInstrumentationPostProcessor implements BeanPostProcessor {

		private final ObjectProvider<LockInstrumentation> instrumentations;

		LockInstrumentationPostProcessor(ObjectProvider<LockInstrumentation> instrumentations) {
			this.instrumentations = instrumentations;
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (bean instanceof LockManager manager && !(bean instanceof InstrumentedLockManager)) {
				List<LockInstrumentation> instrumentations = this.instrumentations.orderedStream().toList();
				if (!instrumentations.isEmpty()) {
					return new InstrumentedLockManager(manager, instrumentations);
				}
			}
			if (bean instanceof AsyncLockManager asyncManager) {
				asyncManager.setInstrumentations(this.instrumentations.orderedStream().toList());
			}
			return bean;
		}

	}

}
