package dev.zklock.autoconfigure;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the Curator client that zk-lock uses. The client is started
 * when created, awaited as {@code zk-lock.startup.*} says, and closed on shutdown. A
 * {@link CuratorFramework} bean of your own replaces it: zk-lock then neither starts,
 * awaits nor closes that client. With {@code zk-lock.ssl.bundle} set, the client
 * connects over TLS with that SSL bundle.
 */
@AutoConfiguration(afterName = "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration")
@ConditionalOnClass(CuratorFramework.class)
@EnableConfigurationProperties(ZkLockProperties.class)
public final class ZkLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(ZooKeeperConnectionDetails.class)
	PropertiesZooKeeperConnectionDetails zooKeeperConnectionDetails(ZkLockProperties properties) {
		return new PropertiesZooKeeperConnectionDetails(properties);
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnProperty(SslBundleZooKeeperClientCustomizer.PROPERTY)
	@ConditionalOnMissingBean
	SslBundleZooKeeperClientCustomizer zkLockSslBundleCustomizer(ZkLockProperties properties,
			ObjectProvider<SslBundles> sslBundles) {
		return SslBundleZooKeeperClientCustomizer.create(properties.getSsl().getBundle(), sslBundles.getIfAvailable());
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	CuratorFramework curatorFramework(ZooKeeperConnectionDetails connectionDetails, ZkLockProperties properties,
			ObjectProvider<CuratorFrameworkBuilderCustomizer> customizers) {
		String connectString = connectionDetails.getConnectString();
		CuratorFrameworkFactory.Builder builder = CuratorFrameworkBuilderFactory.create(connectString, properties);
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		CuratorFramework client = builder.build();
		new CuratorStartup(connectString, properties, builder.getZkClientConfig()).start(client);
		return client;
	}

}
