package dev.zklock.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.util.function.SingletonSupplier;

import dev.zklock.core.AsyncLockManager;
import dev.zklock.LockManager;
import dev.zklock.LongHoldListener;
import dev.zklock.monitor.LockHoldMonitor;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for warnings about locks held longer than
 * {@code zk-lock.hold-warning}.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnBean(LockManager.class)
@ConditionalOnProperty(prefix = "zk-lock", name = "hold-warning")
@EnableConfigurationProperties(ZkLockProperties.class)
public final class LockHoldWarningAutoConfiguration {

	@Bean(initMethod = "start", destroyMethod = "close")
	@ConditionalOnMissingBean
	LockHoldMonitor zkLockHoldMonitor(ObjectProvider<LockManager> lockManager,
			ObjectProvider<AsyncLockManager> asyncLockManager, ZkLockProperties properties,
			ObjectProvider<LongHoldListener> listeners) {
		return new LockHoldMonitor(LockManagers.registry(lockManager), LockManagers.async(asyncLockManager),
				properties.getHoldWarning(), SingletonSupplier.of(() -> listeners.orderedStream().toList()));
	}

}
