package dev.zklock.integration.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.LockManager;
import dev.zklock.integration.ZkLockRegistry;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of Spring Integration's {@link LockRegistry} on zk-lock, when
 * Spring Integration is on the class path, {@code zk-lock.integration.lock-registry.enabled}
 * is true and the application defines no registry of its own.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(LockManager.class)
@ConditionalOnBooleanProperty("zk-lock.integration.lock-registry.enabled")
@EnableConfigurationProperties(ZkLockIntegrationProperties.class)
public final class ZkLockIntegrationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	ZkLockRegistry zkLockRegistry(LockManager lockManager, ZkLockIntegrationProperties properties) {
		return new ZkLockRegistry(lockManager, properties.getName());
	}

}
