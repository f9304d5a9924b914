package dev.zklock.autoconfigure;

import org.apache.curator.framework.CuratorFramework;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

import dev.zklock.core.AsyncLockManager;
import dev.zklock.LockManager;
import dev.zklock.health.ZkLockHealthIndicator;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@code zkLock} health contributor. Turned off with
 * {@code management.health.zklock.enabled=false}.
 */
@AutoConfiguration(after = { ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnClass({ CuratorFramework.class, HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(ZkLockClient.class)
public final class ZkLockHealthContributorAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(name = "zkLockHealthIndicator")
	@ConditionalOnEnabledHealthIndicator("zklock")
	ZkLockHealthIndicator zkLockHealthIndicator(ZkLockClient client, ObjectProvider<LockManager> lockManager,
			ObjectProvider<AsyncLockManager> asyncLockManager) {
		return new ZkLockClientHealthIndicator(client, LockManagers.registry(lockManager),
				LockManagers.async(asyncLockManager));
	}

}
