package dev.zklock.bench;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.zklock.autoconfigure.CuratorFrameworkBuilderCustomizer;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;

/**
 * The benchmarks' application: zk-lock's real auto-configuration and one annotated
 * bean.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class })
public class BenchConfiguration {

	// every client counts its requests by type, for ZooKeeperOpsProfiler
	@Bean
	CuratorFrameworkBuilderCustomizer countingZooKeeper() {
		return OpCounts.customizer();
	}

	@Bean
	LockedService lockedService() {
		return new LockedService();
	}

}
