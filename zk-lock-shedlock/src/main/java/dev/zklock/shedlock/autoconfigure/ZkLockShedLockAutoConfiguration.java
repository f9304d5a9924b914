package dev.zklock.shedlock.autoconfigure;

import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.shedlock.ZkLockProvider;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of ShedLock's {@link LockProvider} on zk-lock, when ShedLock
 * is on the class path and the application defines no provider of its own.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBean(AsyncLockManager.class)
public final class ZkLockShedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	ZkLockProvider zkLockProvider(AsyncLockManager asyncLockManager) {
		return new ZkLockProvider(asyncLockManager);
	}

}
