package dev.zklock.docs;

import io.micrometer.common.KeyValues;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.zklock.metrics.DefaultLockObservationConvention;
import dev.zklock.metrics.LockObservationContext;
import dev.zklock.metrics.LockObservationConvention;

/**
 * The observation convention example of docs/monitoring.md.
 */
@Configuration(proxyBeanMethods = false)
class ObservationSnippets {

	@Bean
	LockObservationConvention lockObservationConvention() {
		return new DefaultLockObservationConvention() {
			@Override
			public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
				return super.getLowCardinalityKeyValues(context)
					.and("zk.lock.keys", Integer.toString(context.getRequest().keys().size()));
			}
		};
	}

}
