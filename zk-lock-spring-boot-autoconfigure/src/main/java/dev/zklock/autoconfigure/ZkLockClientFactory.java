package dev.zklock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Picks zk-lock's client when the context starts, so that the choice does not depend
 * on the order in which auto-configurations register their beans: by then every
 * {@link CuratorFramework} bean of the application is known.
 */
final class ZkLockClientFactory {

	private static final Logger logger = LoggerFactory.getLogger(ZkLockClientFactory.class);

	/**
	 * Name of the bean that exposes zk-lock's client under
	 * {@link ZkLockClient#QUALIFIER}; never a client to share.
	 */
	static final String QUALIFIED_BEAN_NAME = "zkLockCuratorFramework";

	private final ConfigurableListableBeanFactory beanFactory;

	private final Environment environment;

	private final ZkLockProperties properties;

	ZkLockClientFactory(ConfigurableListableBeanFactory beanFactory, Environment environment,
			ZkLockProperties properties) {
		this.beanFactory = beanFactory;
		this.environment = environment;
		this.properties = properties;
	}

	/**
	 * Apply the rule and return the client to use.
	 * @param connectionDetails the connection details a dedicated client would use
	 * @param dedicated builds and starts a dedicated client
	 * @return zk-lock's client
	 */
	ZkLockClient create(ZooKeeperConnectionDetails connectionDetails, Supplier<CuratorFramework> dedicated) {
		List<String> settings = new ArrayList<>(ZkLockConnectionSettings.given(this.environment));
		boolean serviceConnection = !(connectionDetails instanceof PropertiesZooKeeperConnectionDetails);
		if (serviceConnection && !(connectionDetails instanceof EmbeddedZooKeeperConnectionDetails)) {
			settings.add("a ZooKeeperConnectionDetails bean (service connection)");
		}
		List<String> candidates = new ArrayList<>();
		String primary = null;
		for (String name : this.beanFactory.getBeanNamesForType(CuratorFramework.class, true, false)) {
			if (isCandidate(name)) {
				candidates.add(name);
				if (this.beanFactory.containsBeanDefinition(name)
						&& this.beanFactory.getBeanDefinition(name).isPrimary()) {
					primary = name;
				}
			}
		}
		ZkLockClientRule rule = new ZkLockClientRule(this.properties.getClientMode(), settings, candidates, primary,
				serviceConnection || ZkLockConnectionSettings.hasConnectString(this.environment),
				ZkLockConnectionSettings.springCloudConnectString(this.environment));
		String shared = rule.sharedBeanName();
		String mode = this.properties.getClientMode().name().toLowerCase(Locale.ROOT);
		if (shared == null) {
			String why = !settings.isEmpty() ? "given " + String.join(", ", settings)
					: candidates.isEmpty() ? "no CuratorFramework bean to share" : "zk-lock.client-mode=" + mode;
			logger.info("zk-lock: using a dedicated ZooKeeper client for {} ({})", connectionDetails.getConnectString(),
					why);
			return ZkLockClient.dedicated(dedicated.get());
		}
		CuratorFramework client = this.beanFactory.getBean(shared, CuratorFramework.class);
		if (client.getZookeeperClient().isConnected()) {
			ZooKeeperServerCheck.check(client, client.getZookeeperClient().getCurrentConnectionString());
		}
		logger.info("zk-lock: sharing the application's CuratorFramework bean '{}', connected to {}{} "
				+ "(zk-lock.client-mode={}); zk-lock uses its session, namespace and ACLs", shared,
				client.getZookeeperClient().getCurrentConnectionString(),
				StringUtils.hasText(client.getNamespace()) ? " with namespace '" + client.getNamespace() + "'" : "",
				mode);
		List<String> ignored = ZkLockConnectionSettings.dedicatedOnly(this.environment);
		if (!ignored.isEmpty()) {
			logger.warn("zk-lock: {} apply only to a dedicated client and are ignored: the shared bean '{}' keeps its "
					+ "own retry policy, connection-loss policy and startup", String.join(", ", ignored), shared);
		}
		return ZkLockClient.shared(client, shared);
	}

	private boolean isCandidate(String name) {
		if (QUALIFIED_BEAN_NAME.equals(name) || ScopedProxyUtils.isScopedTarget(name)) {
			return false;
		}
		if (!this.beanFactory.containsBeanDefinition(name)) {
			// a singleton registered directly, like Spring Cloud Zookeeper Config's client
			return true;
		}
		BeanDefinition definition = this.beanFactory.getBeanDefinition(name);
		return definition.isAutowireCandidate()
				&& (!(definition instanceof AbstractBeanDefinition bean) || bean.isDefaultCandidate());
	}

}
