package dev.zklock.compatibility;

import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.Configurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration;

import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockClient;
import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * zk-lock's auto-configuration runs after Spring Cloud Zookeeper's although its package
 * sorts first, and zk-lock picks the same client whatever the order: listed either
 * way, or with zk-lock's configuration forced ahead of Spring Cloud's.
 */
class AutoConfigurationOrderTests {

	@RegisterExtension
	static final ClassFixture<InJvmZooKeeper> server = ClassFixture.of(() -> InJvmZooKeeper.builder().start());

	@Test
	void zkLockIsOrderedAfterSpringCloudZookeeperEitherWay() {
		List<Class<?>> listedFirst = List.of(Configurations
			.getClasses(AutoConfigurations.of(ZkLockAutoConfiguration.class, ZookeeperAutoConfiguration.class)));
		List<Class<?>> listedLast = List.of(Configurations
			.getClasses(AutoConfigurations.of(ZookeeperAutoConfiguration.class, ZkLockAutoConfiguration.class)));
		assertThat(listedFirst).containsExactly(ZookeeperAutoConfiguration.class, ZkLockAutoConfiguration.class);
		assertThat(listedLast).containsExactly(ZookeeperAutoConfiguration.class, ZkLockAutoConfiguration.class);
		// a control: by name alone zk-lock would come first
		assertThat(ZkLockAutoConfiguration.class.getName()).isLessThan(ZookeeperAutoConfiguration.class.getName());
	}

	@Test
	void zkLockSharesSpringCloudsClientWhicheverIsRegisteredFirst() {
		ApplicationContextRunner base = new ApplicationContextRunner()
			.withPropertyValues("spring.cloud.zookeeper.connect-string=" + server.get().connectString());
		ApplicationContextRunner zkLockListedFirst = base.withConfiguration(AutoConfigurations
			.of(ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class, ZookeeperAutoConfiguration.class));
		ApplicationContextRunner zkLockListedLast = base.withConfiguration(AutoConfigurations
			.of(ZookeeperAutoConfiguration.class, DistributedLockAutoConfiguration.class, ZkLockAutoConfiguration.class));
		// user configurations are registered before any auto-configuration
		ApplicationContextRunner zkLockForcedFirst = base.withUserConfiguration(ZkLockAutoConfiguration.class)
			.withConfiguration(
					AutoConfigurations.of(ZookeeperAutoConfiguration.class, DistributedLockAutoConfiguration.class));
		for (ApplicationContextRunner runner : List.of(zkLockListedFirst, zkLockListedLast, zkLockForcedFirst)) {
			runner.run((context) -> {
				assertThat(context).hasNotFailed();
				CuratorFramework cloud = context.getBean("curatorFramework", CuratorFramework.class);
				ZkLockClient zkLock = context.getBean(ZkLockClient.class);
				assertThat(zkLock.getSharedBeanName()).isEqualTo("curatorFramework");
				assertThat(zkLock.getCuratorFramework()).isSameAs(cloud);
				assertThat(context.getBean(CuratorFramework.class)).isSameAs(cloud);
			});
		}
	}

}
