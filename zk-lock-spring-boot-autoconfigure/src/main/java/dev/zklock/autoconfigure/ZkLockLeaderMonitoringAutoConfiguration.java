package dev.zklock.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.zklock.actuate.LeadersEndpoint;
import dev.zklock.health.LeadershipHealthIndicator;
import dev.zklock.leader.CuratorLeaderElection;
import dev.zklock.metrics.LeadershipMetrics;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for monitoring leadership: the {@code leaders} endpoint, the
 * {@code zkLockLeadership} health contributor (turned off with
 * {@code management.health.zklockleadership.enabled=false}) and the
 * {@code zk.lock.leader} meters.
 */
@AutoConfiguration(after = ZkLockLeaderAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnBean(CuratorLeaderElection.class)
public final class ZkLockLeaderMonitoringAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
	static final class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnAvailableEndpoint
		LeadersEndpoint leadersEndpoint(CuratorLeaderElection election, ZkLockClient client) {
			return new LeadersEndpoint(election, client.getCuratorFramework());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
	static final class HealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "zkLockLeadershipHealthIndicator")
		@ConditionalOnEnabledHealthIndicator("zklockleadership")
		LeadershipHealthIndicator zkLockLeadershipHealthIndicator(CuratorLeaderElection election) {
			return new LeadershipHealthIndicator(election);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static final class MetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LeadershipMetrics zkLockLeadershipMetrics(MeterRegistry meterRegistry, CuratorLeaderElection election) {
			return new LeadershipMetrics(meterRegistry, election);
		}

	}

}
