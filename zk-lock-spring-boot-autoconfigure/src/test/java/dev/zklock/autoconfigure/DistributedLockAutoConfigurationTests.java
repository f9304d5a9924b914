package dev.zklock.autoconfigure;

import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.util.ClassUtils;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.aop.DistributedLockAdvisor;
import dev.zklock.aop.DistributedLockInterceptor;
import dev.zklock.aop.DistributedLockValidator;
import dev.zklock.aop.LockOperationSource;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.LockManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistributedLockAutoConfiguration}.
 */
class DistributedLockAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner();

	@Test
	void backsOffWithoutZkLocksClient() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockManager.class)
				.doesNotHaveBean(DistributedLockAdvisor.class));
	}

	@Test
	void backsOffWithoutCuratorRecipes() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(InterProcessMutex.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockManager.class)
				.doesNotHaveBean(DistributedLockAdvisor.class));
	}

	@Test
	void createsTheLockBeans() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(CuratorLockManager.class)
				.hasSingleBean(LockTemplate.class)
				.hasSingleBean(LockOperationSource.class)
				.hasSingleBean(DistributedLockInterceptor.class)
				.hasSingleBean(DistributedLockAdvisor.class)
				.hasSingleBean(DistributedLockValidator.class);
			assertThat(context.getBean(DistributedLockAdvisor.class).getOrder())
				.isEqualTo(ZkLockProperties.DEFAULT_ASPECT_ORDER);
			BeanDefinition advisor = context.getBeanFactory().getBeanDefinition("distributedLockAdvisor");
			assertThat(advisor.getRole()).isEqualTo(BeanDefinition.ROLE_INFRASTRUCTURE);
		});
	}

	@Test
	void lockManagerUsesBasePathAndTakesRealLocks() {
		this.contextRunner.withPropertyValues("zk-lock.base-path=/configured-locks").run((context) -> {
			CuratorFramework client = context.getBean(CuratorFramework.class);
			try (LockHandle handle = context.getBean(LockManager.class)
				.acquire(LockRequest.named("configured").keys("k").build())) {
				assertThat(handle.isAcquired()).isTrue();
				assertThat(TestZooKeeper.ephemeralNodes(client, "/configured-locks")).isEqualTo(1);
			}
			assertThat(TestZooKeeper.ephemeralNodes(client, "/configured-locks")).isZero();
		});
	}

	@Test
	void aspectOrderComesFromProperty() {
		this.contextRunner.withPropertyValues("zk-lock.aspect-order=42")
			.run((context) -> assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(42));
	}

	@Test
	void userLockManagerWins() {
		this.contextRunner.withUserConfiguration(CustomLockManagerConfiguration.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(LockManager.class).hasBean("customLockManager");
				assertThat(context.getBean(LockTemplate.class)).isNotNull();
			});
	}

	@Test
	void userAdvisorWins() {
		this.contextRunner
			.withBean("customAdvisor", DistributedLockAdvisor.class,
					() -> new DistributedLockAdvisor(new LockOperationSource(new MockEnvironment(), null),
							new DistributedLockInterceptor(null, null, null), 7))
			.run((context) -> {
				assertThat(context).hasSingleBean(DistributedLockAdvisor.class).hasBean("customAdvisor");
				assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(7);
			});
	}

	@Test
	void proxiesAnnotatedBeansWithoutAspectJ() {
		assertThat(ClassUtils.isPresent("org.aspectj.weaver.Advice", null)).isFalse();
		this.contextRunner.withBean(Locked.class)
			.run((context) -> assertThat(AopUtils.isAopProxy(context.getBean(Locked.class))).isTrue());
	}

	@Test
	void proxiesAnnotatedBeansAlongsideBootAopAutoConfiguration() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
			.withBean(Locked.class)
			.run((context) -> {
				Locked locked = context.getBean(Locked.class);
				assertThat(AopUtils.isCglibProxy(locked)).isTrue();
				assertThat(locked.run()).isEqualTo("ran");
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class CustomLockManagerConfiguration {

		@Bean
		LockManager customLockManager(CuratorFramework client) {
			return new CuratorLockManager(client, "/custom", Duration.ofSeconds(1));
		}

	}

	static class Locked {

		@DistributedLock
		public String run() {
			return "ran";
		}

	}

}
