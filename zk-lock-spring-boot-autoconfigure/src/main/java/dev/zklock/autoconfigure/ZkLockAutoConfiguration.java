package dev.zklock.autoconfigure;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the Curator client that zk-lock uses, a {@link ZkLockClient}.
 * As {@code zk-lock.client-mode} says, zk-lock shares the application's
 * {@link CuratorFramework} bean (Spring Cloud Zookeeper's, or your own), which it
 * neither starts, awaits nor closes, or builds a dedicated client: started when
 * created, awaited as {@code zk-lock.startup.*} says, closed on shutdown. A dedicated
 * client is not a default candidate, so it never becomes the application's
 * {@link CuratorFramework}; it is reached through {@link ZkLockClient} or the
 * {@value ZkLockClient#QUALIFIER} qualifier.
 * <p>
 * Runs after Spring Cloud Zookeeper's auto-configurations, named so that Spring Cloud
 * need not be on the class path; the choice itself is made once every bean is
 * registered, whatever the order. With {@code zk-lock.ssl.bundle} set, a dedicated
 * client connects over TLS with that SSL bundle.
 */
@AutoConfiguration(afterName = { "org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration",
		"org.springframework.cloud.zookeeper.discovery.ZookeeperDiscoveryAutoConfiguration",
		"org.springframework.cloud.zookeeper.serviceregistry.ZookeeperAutoServiceRegistrationAutoConfiguration",
		"org.springframework.cloud.zookeeper.config.ZookeeperConfigAutoConfiguration",
		"org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
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
	ZkLockClient zkLockClient(ConfigurableListableBeanFactory beanFactory, Environment environment,
			ZkLockProperties properties, ZooKeeperConnectionDetails connectionDetails,
			ObjectProvider<CuratorFrameworkBuilderCustomizer> customizers) {
		return new ZkLockClientFactory(beanFactory, environment, properties).create(connectionDetails,
				() -> dedicatedClient(connectionDetails.getConnectString(), properties, customizers));
	}

	// The client zk-lock uses, shared or not, for injection by qualifier only; closed
	// (when dedicated) by the ZkLockClient
	@Bean(name = ZkLockClientFactory.QUALIFIED_BEAN_NAME, defaultCandidate = false, destroyMethod = "")
	@Qualifier(ZkLockClient.QUALIFIER)
	@ConditionalOnMissingBean(name = ZkLockClientFactory.QUALIFIED_BEAN_NAME)
	CuratorFramework zkLockCuratorFramework(ZkLockClient zkLockClient) {
		return zkLockClient.getCuratorFramework();
	}

	private static CuratorFramework dedicatedClient(String connectString, ZkLockProperties properties,
			ObjectProvider<CuratorFrameworkBuilderCustomizer> customizers) {
		CuratorFrameworkFactory.Builder builder = CuratorFrameworkBuilderFactory.create(connectString, properties);
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		CuratorFramework client = builder.build();
		new CuratorStartup(connectString, properties, builder.getZkClientConfig()).start(client);
		return client;
	}

}
