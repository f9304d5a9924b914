package dev.zklock.autoconfigure;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.RetrySleeper;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

import dev.zklock.testsupport.FreePorts;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ZkLockAutoConfiguration} against a real ZooKeeper server.
 */
@ExtendWith(OutputCaptureExtension.class)
class ZkLockAutoConfigurationTests {

	private static InJvmZooKeeper server;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EmbeddedZooKeeperAutoConfiguration.class,
				ZkLockAutoConfiguration.class))
		.withPropertyValues("zk-lock.connect-string=" + server.connectString());

	// no zk-lock connection setting: zk-lock shares the application's client
	private final ApplicationContextRunner sharingRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class));

	@BeforeAll
	static void startServer() throws Exception {
		// tickTime 1s: the server accepts session timeouts from 2s to 20s
		server = InJvmZooKeeper.builder()
			.tickTime(Duration.ofSeconds(1))
			.setting("minSessionTimeout", "2000")
			.setting("maxSessionTimeout", "20000")
			.start();
	}

	@AfterAll
	static void stopServer() throws Exception {
		server.close();
	}

	@Test
	void connectsWithDefaults() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(CuratorFramework.class)
				.hasSingleBean(PropertiesZooKeeperConnectionDetails.class);
			CuratorFramework client = context.getBean(CuratorFramework.class);
			assertThat(client.getState()).isEqualTo(CuratorFrameworkState.STARTED);
			assertThat(client.getZookeeperClient().isConnected()).isTrue();
			assertThat(client.getZookeeperClient().getCurrentConnectionString())
				.isEqualTo(server.connectString());
			assertThat(client.getNamespace()).isEmpty();
		});
	}

	@Test
	void propertiesReachTheClient(CapturedOutput output) {
		this.runner
			.withPropertyValues("zk-lock.namespace=apps/orders", "zk-lock.session-timeout=7s",
					"zk-lock.connection-timeout=3500ms", "zk-lock.retry.base-sleep=10ms",
					"zk-lock.retry.max-sleep=70ms", "zk-lock.retry.max-retries=12")
			.run((context) -> {
				CuratorFramework client = context.getBean(CuratorFramework.class);
				assertThat(client.getNamespace()).isEqualTo("apps/orders");
				client.create().creatingParentsIfNeeded().forPath("/probe");
				assertThat(client.usingNamespace(null).checkExists().forPath("/apps/orders/probe")).isNotNull();
				assertThat(client.getZookeeperClient().getConnectionTimeoutMs()).isEqualTo(3500);
				// 7s lies within the server's 2s..20s, so the server grants it as asked
				assertThat(client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs()).isEqualTo(7000);
				assertThat(output).contains("connected to ZooKeeper at " + server.connectString())
					.doesNotContain("negotiated a session timeout");
				ExponentialBackoffRetry retry = (ExponentialBackoffRetry) client.getZookeeperClient()
					.getRetryPolicy();
				assertThat(retry.getBaseSleepTimeMs()).isEqualTo(10);
				assertThat(retry.getN()).isEqualTo(12);
				assertThat(sleepsOfLastRetry(retry, 11)).allMatch((sleep) -> sleep <= 70).contains(70L);
			});
	}

	private static List<Long> sleepsOfLastRetry(ExponentialBackoffRetry retry, int retryCount) {
		// the last retry sleeps base * random(1..2^12): all but a few draws exceed max-sleep
		List<Long> sleeps = new ArrayList<>();
		RetrySleeper recorder = (time, unit) -> sleeps.add(unit.toMillis(time));
		for (int i = 0; i < 50; i++) {
			assertThat(retry.allowRetry(retryCount, 0, recorder)).isTrue();
		}
		assertThat(retry.allowRetry(retryCount + 1, 0, recorder)).isFalse();
		return sleeps;
	}

	@Test
	void warnsWhenTheServerClampsTheSessionTimeout(CapturedOutput output) {
		this.runner.withPropertyValues("zk-lock.session-timeout=45s").run((context) -> {
			CuratorFramework client = context.getBean(CuratorFramework.class);
			assertThat(client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs()).isEqualTo(20000);
			assertThat(output).contains("negotiated a session timeout of 20000ms instead of the 45000ms asked by "
					+ "zk-lock.session-timeout");
		});
	}

	@Test
	void authAddsCredentialsAndCreatorAllAcl(CapturedOutput output) throws Exception {
		this.runner.withPropertyValues("zk-lock.auth.scheme=digest", "zk-lock.auth.credentials=alice:s3cr3t-pw")
			.run((context) -> {
				CuratorFramework client = context.getBean(CuratorFramework.class);
				client.create().forPath("/acl-probe", "x".getBytes(StandardCharsets.UTF_8));
				List<ACL> acl = client.getACL().forPath("/acl-probe");
				assertThat(acl).hasSize(1);
				assertThat(acl.get(0).getPerms()).isEqualTo(ZooDefs.Perms.ALL);
				assertThat(acl.get(0).getId().getScheme()).isEqualTo("digest");
				assertThat(acl.get(0).getId().getId())
					.isEqualTo(DigestAuthenticationProvider.generateDigest("alice:s3cr3t-pw"));
				assertThat(client.getData().forPath("/acl-probe")).asString(StandardCharsets.UTF_8).isEqualTo("x");
				try (CuratorFramework anonymous = CuratorFrameworkFactory
					.newClient(server.connectString(), new RetryOneTime(10))) {
					anonymous.start();
					assertThat(anonymous.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
					assertThatExceptionOfType(KeeperException.NoAuthException.class)
						.isThrownBy(() -> anonymous.getData().forPath("/acl-probe"));
				}
				client.delete().forPath("/acl-probe");
			});
		assertThat(output).doesNotContain("s3cr3t-pw");
	}

	@Test
	void tlsSettingsReachTheZooKeeperClientConfig(@TempDir Path dir, CapturedOutput output) throws Exception {
		Path trustStore = emptyPkcs12(dir.resolve("trust.p12"), "trust-pw");
		Path keyStore = emptyPkcs12(dir.resolve("key.p12"), "key-pw");
		int closedPort = FreePorts.next();
		this.runner
			.withPropertyValues("zk-lock.connect-string=127.0.0.1:" + closedPort, "zk-lock.startup.fail-fast=false",
					"zk-lock.startup.wait=100ms", "zk-lock.tls.enabled=true", "zk-lock.tls.trust-store=" + trustStore,
					"zk-lock.tls.trust-store-password=trust-pw", "zk-lock.tls.trust-store-type=PKCS12",
					"zk-lock.tls.key-store=" + keyStore, "zk-lock.tls.key-store-password=key-pw",
					"zk-lock.tls.key-store-type=PKCS12")
			.run((context) -> {
				CuratorFramework client = context.getBean(CuratorFramework.class);
				ZKClientConfig config = client.getZookeeperClient().getZooKeeper().getClientConfig();
				assertThat(config.getProperty("zookeeper.client.secure")).isEqualTo("true");
				assertThat(config.getProperty("zookeeper.clientCnxnSocket"))
					.isEqualTo("org.apache.zookeeper.ClientCnxnSocketNetty");
				assertThat(config.getProperty("zookeeper.ssl.trustStore.location")).isEqualTo(trustStore.toString());
				assertThat(config.getProperty("zookeeper.ssl.trustStore.password")).isEqualTo("trust-pw");
				assertThat(config.getProperty("zookeeper.ssl.trustStore.type")).isEqualTo("PKCS12");
				assertThat(config.getProperty("zookeeper.ssl.keyStore.location")).isEqualTo(keyStore.toString());
				assertThat(config.getProperty("zookeeper.ssl.keyStore.password")).isEqualTo("key-pw");
				assertThat(config.getProperty("zookeeper.ssl.keyStore.type")).isEqualTo("PKCS12");
			});
		assertThat(output).doesNotContain("trust-pw").doesNotContain("key-pw");
	}

	@Test
	void withoutTlsTheClientConfigIsPlain() {
		this.runner.run((context) -> {
			CuratorFramework client = context.getBean(CuratorFramework.class);
			ZKClientConfig config = client.getZookeeperClient().getZooKeeper().getClientConfig();
			assertThat(config.getProperty("zookeeper.client.secure")).isNotEqualTo("true");
		});
	}

	private static Path emptyPkcs12(Path path, String password) throws Exception {
		KeyStore store = KeyStore.getInstance("PKCS12");
		store.load(null, null);
		try (OutputStream out = Files.newOutputStream(path)) {
			store.store(out, password.toCharArray());
		}
		return path;
	}

	@Test
	void backsOffWithoutCurator() {
		this.runner.withClassLoader(new FilteredClassLoader(CuratorFramework.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(CuratorFramework.class)
				.doesNotHaveBean(ZooKeeperConnectionDetails.class)
				.doesNotHaveBean(ZkLockProperties.class));
	}

	@Test
	void customizersRunInOrderAfterTheProperties() {
		List<String> calls = new ArrayList<>();
		this.runner.withPropertyValues("zk-lock.connection-timeout=3s")
			.withBean("second", CuratorFrameworkBuilderCustomizer.class,
					() -> new OrderedCustomizer(2, calls, "second", 2222))
			.withBean("first", CuratorFrameworkBuilderCustomizer.class,
					() -> new OrderedCustomizer(1, calls, "first", 1111))
			.run((context) -> {
				assertThat(calls).containsExactly("first:3000", "second:1111");
				CuratorFramework client = context.getBean(CuratorFramework.class);
				assertThat(client.getZookeeperClient().getConnectionTimeoutMs()).isEqualTo(2222);
			});
	}

	@Test
	void usesTheUsersConnectionDetails() {
		this.runner.withPropertyValues("zk-lock.connect-string=127.0.0.1:1")
			.withBean(ZooKeeperConnectionDetails.class, () -> () -> server.connectString())
			.run((context) -> {
				assertThat(context).doesNotHaveBean(PropertiesZooKeeperConnectionDetails.class);
				CuratorFramework client = context.getBean(CuratorFramework.class);
				assertThat(client.getZookeeperClient().isConnected()).isTrue();
				assertThat(client.getZookeeperClient().getCurrentConnectionString())
					.isEqualTo(server.connectString());
			});
	}

	@Test
	void leavesTheUsersClientAloneNeitherStartedTwiceNorClosed() {
		CuratorFramework users = CuratorFrameworkFactory.newClient(server.connectString(),
				new RetryOneTime(10));
		users.start();
		try {
			this.sharingRunner.withInitializer((context) -> context.getBeanFactory().registerSingleton("users", users))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(context.getBeanNamesForType(CuratorFramework.class)).containsExactlyInAnyOrder("users",
							"zkLockCuratorFramework");
					assertThat(context.getBean(CuratorFramework.class)).isSameAs(users);
					assertThat(context.getBean(ZkLockClient.class).getCuratorFramework()).isSameAs(users);
				});
			assertThat(users.getState()).isEqualTo(CuratorFrameworkState.STARTED);
		}
		finally {
			users.close();
		}
	}

	@Test
	void doesNotStartAUsersClientThatIsNotStarted() {
		this.sharingRunner.withUserConfiguration(LatentClientConfiguration.class).run((context) -> {
			assertThat(context.getBean(ZkLockClient.class).getSharedBeanName()).isEqualTo("latentClient");
			assertThat(context.getBean(CuratorFramework.class).getState()).isEqualTo(CuratorFrameworkState.LATENT);
		});
	}

	@Test
	void closesItsOwnClientOnShutdown() {
		CuratorFramework[] client = new CuratorFramework[1];
		this.runner.run((context) -> client[0] = context.getBean(CuratorFramework.class));
		assertThat(client[0].getState()).isEqualTo(CuratorFrameworkState.STOPPED);
	}

	@Configuration(proxyBeanMethods = false)
	static class LatentClientConfiguration {

		@Bean
		CuratorFramework latentClient() {
			return CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(10));
		}

	}

	private record OrderedCustomizer(int order, List<String> calls, String name,
			int connectionTimeoutMs) implements CuratorFrameworkBuilderCustomizer, Ordered {

		@Override
		public void customize(CuratorFrameworkFactory.Builder builder) {
			this.calls.add(this.name + ":" + builder.getConnectionTimeoutMs());
			builder.connectionTimeoutMs(this.connectionTimeoutMs);
		}

		@Override
		public int getOrder() {
			return this.order;
		}

	}

}
