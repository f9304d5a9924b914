package dev.zklock.autoconfigure;

import java.nio.file.Path;

import dev.zklock.embedded.EmbeddedZooKeeper;
import dev.zklock.embedded.EmbeddedZooKeeperDependencies;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.StringUtils;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for an in-process ZooKeeper server, for development only. Active
 * when {@code zk-lock.embedded.enabled=true}; the client then connects to it.
 */
@AutoConfiguration(before = ZkLockAutoConfiguration.class)
@ConditionalOnClass(ZooKeeperServerEmbedded.class)
@ConditionalOnBooleanProperty("zk-lock.embedded.enabled")
@EnableConfigurationProperties(ZkLockProperties.class)
public final class EmbeddedZooKeeperAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	EmbeddedZooKeeper embeddedZooKeeper(ZkLockProperties properties, ResourceLoader resourceLoader) {
		EmbeddedZooKeeperDependencies.check(resourceLoader.getClassLoader());
		ZkLockProperties.Embedded embedded = properties.getEmbedded();
		Path dataDirectory = StringUtils.hasText(embedded.getDataDir()) ? Path.of(embedded.getDataDir()) : null;
		return EmbeddedZooKeeper.start(embedded.getPort(), dataDirectory);
	}

	@Bean
	@ConditionalOnMissingBean(ZooKeeperConnectionDetails.class)
	EmbeddedZooKeeperConnectionDetails embeddedZooKeeperConnectionDetails(EmbeddedZooKeeper embeddedZooKeeper) {
		return new EmbeddedZooKeeperConnectionDetails(embeddedZooKeeper);
	}

}
