package dev.zklock.autoconfigure;

import java.util.Map;
import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinitionCustomizer;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.actuate.LocksEndpoint;
import dev.zklock.LockManager;
import dev.zklock.health.ZkLockHealthIndicator;
import dev.zklock.metrics.ZooKeeperConnectionMetrics;
import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code zk-lock.client-mode}: which client zk-lock uses beside the application's own
 * {@link CuratorFramework} beans, against a real ZooKeeper server.get(). Also pins down the
 * Spring semantics the rule relies on: a bean that is not a default candidate does
 * not satisfy {@code @ConditionalOnMissingBean} and is not injected by type.
 */
@ExtendWith(OutputCaptureExtension.class)
class ZkLockClientModeTests {

	// the tests close the clients they make; the context must not
	private static final BeanDefinitionCustomizer NOT_CLOSED = (definition) -> definition.setDestroyMethodName("");

	@RegisterExtension
	static final ClassFixture<InJvmZooKeeper> server = ClassFixture.of(() -> InJvmZooKeeper.builder().start());

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class,
				ZkLockHealthContributorAutoConfiguration.class, LocksEndpointAutoConfiguration.class,
				ZkLockMetricsAutoConfiguration.class, HealthContributorAutoConfiguration.class,
				EndpointAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
		.withPropertyValues("zk-lock.base-path=/modes-" + UUID.randomUUID(),
				"management.endpoints.web.exposure.include=locks");

	@Test
	void aDedicatedClientIsNeitherInjectedByTypeNorCountedByOnMissingBean() {
		this.runner.withPropertyValues("zk-lock.connect-string=" + server.get().connectString())
			.withConfiguration(AutoConfigurations.of(OtherLibraryAutoConfiguration.class))
			.withUserConfiguration(Consumers.class)
			.run((context) -> {
				ZkLockClient zkLockClient = context.getBean(ZkLockClient.class);
				assertThat(zkLockClient.isShared()).isFalse();
				CuratorFramework dedicated = zkLockClient.getCuratorFramework();
				assertThat(dedicated.getZookeeperClient().isConnected()).isTrue();
				// the other library ran after zk-lock and still made its own client
				CuratorFramework others = context.getBean("otherLibraryClient", CuratorFramework.class);
				assertThat(others).isNotSameAs(dedicated);
				Consumers consumers = context.getBean(Consumers.class);
				assertThat(consumers.plain).isSameAs(others);
				assertThat(consumers.qualified).isSameAs(dedicated);
				assertThat(context.getBean(CuratorFramework.class)).isSameAs(others);
			});
	}

	@Test
	void withNoOtherClientTheDedicatedOneIsStillNotTheApplicationsClient() {
		this.runner.withPropertyValues("zk-lock.connect-string=" + server.get().connectString())
			.withBean(PlainConsumer.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("No qualifying bean of type 'org.apache.curator.framework.CuratorFramework'"));
		this.runner.withPropertyValues("zk-lock.connect-string=" + server.get().connectString())
			.withUserConfiguration(Consumers.class)
			.run((context) -> assertThat(context.getBean(Consumers.class).qualified)
				.isSameAs(context.getBean(ZkLockClient.class).getCuratorFramework()));
	}

	/**
	 * What docs/configuration.md says of the only client being zk-lock's: a lookup on
	 * the context by type finds it; an injected {@code ObjectProvider} resolves as
	 * injection does and does not.
	 */
	@Test
	void withNoOtherClientAContextLookupFindsTheDedicatedOneAndAnInjectedProviderDoesNot() {
		this.runner.withPropertyValues("zk-lock.connect-string=" + server.get().connectString())
			.withBean(ProviderConsumer.class)
			.run((context) -> {
				CuratorFramework dedicated = context.getBean(ZkLockClient.class).getCuratorFramework();
				assertThat(context.getBean(CuratorFramework.class)).isSameAs(dedicated);
				assertThat(context.getBeanProvider(CuratorFramework.class).getIfAvailable()).isSameAs(dedicated);
				ObjectProvider<CuratorFramework> injected = context.getBean(ProviderConsumer.class).provider;
				assertThat(injected.getIfAvailable()).isNull();
				assertThatExceptionOfType(NoSuchBeanDefinitionException.class).isThrownBy(injected::getObject)
					.withMessageContaining("No qualifying bean of type 'org.apache.curator.framework.CuratorFramework'");
			});
	}

	@Test
	void sharesTheApplicationsClientWhenNoConnectionSettingIsGiven(CapturedOutput output) {
		CuratorFramework users = startedClient();
		try {
			this.runner.withBean("usersClient", CuratorFramework.class, () -> users, NOT_CLOSED).run((context) -> {
				ZkLockClient zkLockClient = context.getBean(ZkLockClient.class);
				assertThat(zkLockClient.isShared()).isTrue();
				assertThat(zkLockClient.getSharedBeanName()).isEqualTo("usersClient");
				assertThat(zkLockClient.getCuratorFramework()).isSameAs(users);
				assertThat(context.getBean(CuratorFramework.class)).isSameAs(users);
				try (LockHandle handle = context.getBean(LockManager.class)
					.acquire(LockRequest.named("shared").build())) {
					assertThat(handle.isAcquired()).isTrue();
					assertThat(users.getChildren().forPath(basePath(context) + "/shared")).hasSize(1);
				}
				assertThat(output).contains("zk-lock: sharing the application's CuratorFramework bean 'usersClient', "
						+ "connected to " + server.get().connectString());
				assertThat(health(context).getDetails()).containsEntry("client",
						Map.of("mode", "shared", "bean", "usersClient"));
				assertThat(context.getBean(LocksEndpoint.class).locks().client())
					.isEqualTo(Map.of("mode", "shared", "bean", "usersClient"));
				assertThat(context.getBean(MeterRegistry.class)
					.get(ZooKeeperConnectionMetrics.CONNECTION_STATE)
					.tag("client", "shared")
					.counters()).isNotEmpty();
			});
			// zk-lock does not close what it shares
			assertThat(users.getState()).isEqualTo(CuratorFrameworkState.STARTED);
			// settings only a dedicated client applies are named as ignored
			assertThat(output).doesNotContain("apply only to a dedicated client");
			this.runner.withBean("usersClient", CuratorFramework.class, () -> users, NOT_CLOSED)
				.withPropertyValues("zk-lock.retry.max-retries=3", "zk-lock.connection-loss-policy=lost")
				.run((context) -> assertThat(output).contains("zk-lock: zk-lock.connection-loss-policy, "
						+ "zk-lock.retry.max-retries apply only to a dedicated client and are ignored: the shared bean "
						+ "'usersClient'"));
		}
		finally {
			users.close();
		}
	}

	@Test
	void aConnectStringGivesZkLockItsOwnClientAndLeavesTheUsersAlone() {
		CuratorFramework users = startedClient();
		try {
			CuratorFramework[] dedicated = new CuratorFramework[1];
			this.runner.withBean("usersClient", CuratorFramework.class, () -> users, NOT_CLOSED)
				.withPropertyValues("zk-lock.connect-string=" + server.get().connectString())
				.run((context) -> {
					ZkLockClient zkLockClient = context.getBean(ZkLockClient.class);
					assertThat(zkLockClient.isShared()).isFalse();
					dedicated[0] = zkLockClient.getCuratorFramework();
					assertThat(dedicated[0]).isNotSameAs(users);
					assertThat(context.getBean(CuratorFramework.class)).isSameAs(users);
					assertThat(health(context).getDetails()).containsEntry("client", Map.of("mode", "dedicated"));
					assertThat(sessionId(dedicated[0])).isNotEqualTo(sessionId(users));
				});
			assertThat(dedicated[0].getState()).isEqualTo(CuratorFrameworkState.STOPPED);
			assertThat(users.getState()).isEqualTo(CuratorFrameworkState.STARTED);
		}
		finally {
			users.close();
		}
	}

	@Test
	void theChoiceDoesNotDependOnTheOrderInWhichClientsAreRegistered() {
		// a client registered by an auto-configuration that runs after zk-lock's
		this.runner.withConfiguration(AutoConfigurations.of(OtherLibraryAutoConfiguration.class))
			.withPropertyValues("other.connect-string=" + server.get().connectString())
			.run((context) -> {
				ZkLockClient zkLockClient = context.getBean(ZkLockClient.class);
				assertThat(zkLockClient.getSharedBeanName()).isEqualTo("otherLibraryClient");
				assertThat(context.getBeanNamesForType(CuratorFramework.class)).containsExactlyInAnyOrder(
						"otherLibraryClient", ZkLockClientFactory.QUALIFIED_BEAN_NAME);
			});
	}

	@Test
	void sharedWithAConnectionSettingFailsNamingBoth() {
		CuratorFramework users = startedClient();
		try {
			this.runner.withBean("usersClient", CuratorFramework.class, () -> users, NOT_CLOSED)
				.withPropertyValues("zk-lock.client-mode=shared", "zk-lock.connect-string=" + server.get().connectString(),
						"zk-lock.session-timeout=20s")
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.isInstanceOf(ZkLockClientModeException.class)
					.hasMessageContaining(
							"zk-lock.client-mode=shared contradicts zk-lock.connect-string, zk-lock.session-timeout"));
		}
		finally {
			users.close();
		}
	}

	@Test
	void sharedWithNoClientToShareFails() {
		this.runner.withPropertyValues("zk-lock.client-mode=shared")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(ZkLockClientModeException.class)
				.hasMessageContaining("zk-lock.client-mode=shared but the application has no CuratorFramework bean"));
	}

	@Test
	void noClientAndNoConnectStringNamesSpringCloudsConnectString() {
		this.runner.withPropertyValues("spring.cloud.zookeeper.connect-string=" + server.get().connectString())
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(ZkLockClientModeException.class)
				.hasMessageContaining("zk-lock.connect-string is not set, while spring.cloud.zookeeper.connect-string='"
						+ server.get().connectString() + "' is"));
	}

	@Test
	void dedicatedModeIgnoresTheApplicationsClient() {
		CuratorFramework users = startedClient();
		try {
			this.runner.withBean("usersClient", CuratorFramework.class, () -> users, NOT_CLOSED)
				.withPropertyValues("zk-lock.client-mode=dedicated", "zk-lock.connect-string=" + server.get().connectString())
				.run((context) -> assertThat(context.getBean(ZkLockClient.class).isShared()).isFalse());
		}
		finally {
			users.close();
		}
	}

	@Test
	void severalClientsToShareNeedAPrimary() {
		CuratorFramework first = startedClient();
		CuratorFramework second = startedClient();
		try {
			ApplicationContextRunner twoClients = this.runner.withBean("first", CuratorFramework.class, () -> first, NOT_CLOSED)
				.withBean("second", CuratorFramework.class, () -> second, NOT_CLOSED, (definition) -> definition.setPrimary(true));
			twoClients.run((context) -> assertThat(context.getBean(ZkLockClient.class).getSharedBeanName())
				.isEqualTo("second"));
			this.runner.withBean("first", CuratorFramework.class, () -> first, NOT_CLOSED)
				.withBean("second", CuratorFramework.class, () -> second, NOT_CLOSED)
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.isInstanceOf(ZkLockClientModeException.class)
					.hasMessageContaining("found 2 CuratorFramework beans to share (first, second)"));
		}
		finally {
			first.close();
			second.close();
		}
	}

	private static Health health(org.springframework.context.ApplicationContext context) {
		return context.getBean(ZkLockHealthIndicator.class).health();
	}

	private static String basePath(org.springframework.context.ApplicationContext context) {
		return context.getBean(ZkLockProperties.class).getBasePath();
	}

	private static long sessionId(CuratorFramework client) throws Exception {
		return client.getZookeeperClient().getZooKeeper().getSessionId();
	}

	private static CuratorFramework startedClient() {
		CuratorFramework client = CuratorFrameworkFactory.newClient(server.get().connectString(), new RetryOneTime(100));
		client.start();
		return client;
	}

	/**
	 * Needs a plain client.
	 */
	static class PlainConsumer {

		PlainConsumer(CuratorFramework client) {
		}

	}

	/**
	 * Asks for an {@code ObjectProvider} of a plain client.
	 */
	static class ProviderConsumer {

		final ObjectProvider<CuratorFramework> provider;

		ProviderConsumer(ObjectProvider<CuratorFramework> provider) {
			this.provider = provider;
		}

	}

	/**
	 * Asks for a plain client and for zk-lock's one.
	 */
	static class Consumers {

		final CuratorFramework plain;

		final CuratorFramework qualified;

		Consumers(ObjectProvider<CuratorFramework> plain, @Qualifier(ZkLockClient.QUALIFIER) CuratorFramework qualified) {
			this.plain = plain.getIfAvailable();
			this.qualified = qualified;
		}

	}

	/**
	 * Another library that makes a client unless the application has one, ordered after
	 * zk-lock's auto-configuration.
	 */
	@AutoConfiguration(after = ZkLockAutoConfiguration.class)
	static class OtherLibraryAutoConfiguration {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean
		CuratorFramework otherLibraryClient(org.springframework.core.env.Environment environment) {
			CuratorFramework client = CuratorFrameworkFactory.newClient(
					environment.getProperty("other.connect-string", server.get().connectString()), new RetryOneTime(100));
			client.start();
			return client;
		}

	}

}
