package dev.zklock.autoconfigure;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import dev.zklock.LockManager;
import dev.zklock.metrics.LockObservationConvention;
import dev.zklock.metrics.LockObservations;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the Micrometer observation of each lock use, from the
 * wait to the release, which a tracing bridge turns into a span. A
 * {@link LockObservationConvention} bean, if any, names it and its key values.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ ObservationRegistry.class, LockManager.class })
@Import(LockInstrumentationConfiguration.class)
public final class ZkLockObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockObservations zkLockObservations(ObservationRegistry observationRegistry,
			ObjectProvider<LockObservationConvention> convention) {
		return new LockObservations(observationRegistry, convention.getIfAvailable());
	}

}
