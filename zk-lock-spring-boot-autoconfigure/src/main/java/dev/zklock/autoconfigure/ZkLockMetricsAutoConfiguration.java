package dev.zklock.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import org.apache.curator.framework.CuratorFramework;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import dev.zklock.core.AsyncLockManager;
import dev.zklock.LockManager;
import dev.zklock.metrics.LocalHandoffMetrics;
import dev.zklock.metrics.LockDeadlockMetrics;
import dev.zklock.metrics.LockMetrics;
import dev.zklock.metrics.LockRevocationMetrics;
import dev.zklock.metrics.ZooKeeperConnectionMetrics;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for zk-lock's Micrometer meters: lock waits, holds, active
 * and waiting locks, lost locks, long holds, local hand-offs, deadlocks ended and
 * connection state transitions. The {@link LockMetrics} bean is a
 * {@link dev.zklock.LockLossListener} and a
 * {@link dev.zklock.LongHoldListener}, so the lock manager and the hold monitor
 * report to it.
 */
@AutoConfiguration(after = { DistributedLockAutoConfiguration.class },
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnClass({ CuratorFramework.class, MeterRegistry.class })
@ConditionalOnBean({ MeterRegistry.class, LockManager.class, ZkLockClient.class })
@Import(LockInstrumentationConfiguration.class)
public final class ZkLockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockMetrics zkLockMetrics(MeterRegistry meterRegistry) {
		return new LockMetrics(meterRegistry);
	}

	@Bean
	@ConditionalOnMissingBean
	LockRevocationMetrics zkLockRevocationMetrics(MeterRegistry meterRegistry) {
		return new LockRevocationMetrics(meterRegistry);
	}

	// a LockDeadlockListener bean: the lock manager tells it of each deadlock it ended
	@Bean
	@ConditionalOnMissingBean
	LockDeadlockMetrics zkLockDeadlockMetrics(MeterRegistry meterRegistry) {
		return new LockDeadlockMetrics(meterRegistry);
	}

	@Bean
	@ConditionalOnMissingBean
	LocalHandoffMetrics zkLockLocalHandoffMetrics(MeterRegistry meterRegistry, ObjectProvider<LockManager> lockManager,
			ObjectProvider<AsyncLockManager> asyncLockManager) {
		return new LocalHandoffMetrics(meterRegistry, LockManagers.localHandoffs(lockManager, asyncLockManager));
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	ZooKeeperConnectionMetrics zkLockConnectionMetrics(ZkLockClient client, MeterRegistry meterRegistry) {
		return new ZooKeeperConnectionMetrics(client.getCuratorFramework(), meterRegistry, client.getMode());
	}

}
