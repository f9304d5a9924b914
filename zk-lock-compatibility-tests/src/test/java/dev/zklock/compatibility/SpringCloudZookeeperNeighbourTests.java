package dev.zklock.compatibility;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.autoconfigure.ZkLockClient;
import dev.zklock.LockManager;
import dev.zklock.health.ZkLockHealthIndicator;
import dev.zklock.testsupport.InJvmZooKeeper;

import static dev.zklock.compatibility.ZooKeeperServers.children;
import static dev.zklock.compatibility.ZooKeeperServers.observer;
import static dev.zklock.compatibility.ZooKeeperServers.owner;
import static dev.zklock.compatibility.ZooKeeperServers.sessionId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * zk-lock beside Spring Cloud Zookeeper discovery, in a real web application, against
 * two real ZooKeeper servers A and B. Each case looks at the servers from outside:
 * where the lock nodes and the service registration live, owned by which session,
 * under which namespace and with which ACL.
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringCloudZookeeperNeighbourTests {

	private static final Duration REGISTRATION_WAIT = Duration.ofSeconds(30);

	private static InJvmZooKeeper serverA;

	private static InJvmZooKeeper serverB;

	private static CuratorFramework onA;

	private static CuratorFramework onB;

	private final String service = "svc-" + UUID.randomUUID().toString().substring(0, 8);

	@BeforeAll
	static void startServers() {
		serverA = InJvmZooKeeper.builder().start();
		serverB = InJvmZooKeeper.builder().start();
		onA = observer(serverA.connectString());
		onB = observer(serverB.connectString());
	}

	@AfterAll
	static void stopServers() {
		onA.close();
		onB.close();
		serverA.close();
		serverB.close();
	}

	@Test
	void onlySpringCloudConfiguredSharesItsClientForLocksAndRegistration(CapturedOutput output) throws Exception {
		try (ConfigurableApplicationContext app = start("spring.cloud.zookeeper.connect-string=" + a())) {
			CuratorFramework cloud = app.getBean("curatorFramework", CuratorFramework.class);
			ZkLockClient zkLock = app.getBean(ZkLockClient.class);
			assertThat(zkLock.isShared()).isTrue();
			assertThat(zkLock.getSharedBeanName()).isEqualTo("curatorFramework");
			assertThat(zkLock.getCuratorFramework()).isSameAs(cloud);
			String registration = awaitRegistration(onA);
			try (LockHandle lock = lock(app, "only-cloud")) {
				// one shared client: one session owns both nodes, on A
				assertThat(owner(onA, lock.nodePath())).isEqualTo(sessionId(cloud));
				assertThat(owner(onA, registration)).isEqualTo(sessionId(cloud));
				assertThat(onB.checkExists().forPath(lock.nodePath())).isNull();
			}
			assertThat(children(onB, "/services/" + this.service)).isEmpty();
			assertThat(output).contains("zk-lock: sharing the application's CuratorFramework bean 'curatorFramework', "
					+ "connected to " + a());
			assertThat(app.getBean(ZkLockHealthIndicator.class).health().getDetails()).containsEntry("client",
					Map.of("mode", "shared", "bean", "curatorFramework"));
		}
	}

	@Test
	void springCloudOnAAndZkLockOnBKeepTheRegistrationOnA() throws Exception {
		try (ConfigurableApplicationContext app = start("spring.cloud.zookeeper.connect-string=" + a(),
				"zk-lock.connect-string=" + b())) {
			CuratorFramework cloud = app.getBean("curatorFramework", CuratorFramework.class);
			ZkLockClient zkLock = app.getBean(ZkLockClient.class);
			assertThat(zkLock.isShared()).isFalse();
			CuratorFramework dedicated = zkLock.getCuratorFramework();
			assertThat(dedicated).isNotSameAs(cloud);
			assertThat(cloud.getZookeeperClient().getCurrentConnectionString()).isEqualTo(a());
			assertThat(dedicated.getZookeeperClient().getCurrentConnectionString()).isEqualTo(b());
			String registration = awaitRegistration(onA);
			assertThat(owner(onA, registration)).isEqualTo(sessionId(cloud));
			assertThat(children(onB, "/services/" + this.service)).isEmpty();
			try (LockHandle lock = lock(app, "cloud-a-locks-b")) {
				// two sessions, one per server
				assertThat(sessionId(dedicated)).isNotEqualTo(sessionId(cloud));
				assertThat(owner(onB, lock.nodePath())).isEqualTo(sessionId(dedicated));
				assertThat(onA.checkExists().forPath(lock.nodePath())).isNull();
			}
			assertThat(app.getBean(ZkLockHealthIndicator.class).health().getDetails()).containsEntry("client",
					Map.of("mode", "dedicated"));
		}
	}

	@Test
	void zkLocksNamespaceAuthAndSessionTimeoutStayOutOfDiscovery() throws Exception {
		String namespace = "zklock-" + this.service;
		try (ConfigurableApplicationContext app = start("spring.cloud.zookeeper.connect-string=" + a(),
				"spring.cloud.zookeeper.session-timeout=12s", "zk-lock.connect-string=" + a(),
				"zk-lock.namespace=" + namespace, "zk-lock.auth.scheme=digest", "zk-lock.auth.credentials=app:secret",
				"zk-lock.session-timeout=7s")) {
			CuratorFramework cloud = app.getBean("curatorFramework", CuratorFramework.class);
			CuratorFramework dedicated = app.getBean(ZkLockClient.class).getCuratorFramework();
			// the registration keeps Spring Cloud's path, open ACL and session timeout
			String registration = awaitRegistration(onA);
			assertThat(onA.checkExists().forPath("/" + namespace + registration)).isNull();
			assertThat(onA.getACL().forPath(registration)).containsExactlyElementsOf(ZooDefs.Ids.OPEN_ACL_UNSAFE);
			assertThat(owner(onA, registration)).isEqualTo(sessionId(cloud));
			assertThat(cloud.getNamespace()).isEmpty();
			assertThat(cloud.getZookeeperClient().getLastNegotiatedSessionTimeoutMs()).isEqualTo(12_000);
			assertThat(dedicated.getZookeeperClient().getLastNegotiatedSessionTimeoutMs()).isEqualTo(7_000);
			try (LockHandle lock = lock(app, "namespaced");
					CuratorFramework withCredentials = observer(a(), "app:secret")) {
				// the lock nodes have zk-lock's namespace and digest ACL
				String node = "/" + namespace + lock.nodePath();
				// (ZooKeeper 3.9 checks READ for exists too, so only zk-lock's credentials see it)
				assertThat(owner(withCredentials, node)).isEqualTo(sessionId(dedicated));
				assertThat(withCredentials.getACL().forPath(node)).containsExactly(new ACL(ZooDefs.Perms.ALL,
						new Id("digest", DigestAuthenticationProvider.generateDigest("app:secret"))));
				assertThatExceptionOfType(KeeperException.NoAuthException.class)
					.isThrownBy(() -> onA.getData().forPath(node));
			}
			// a client without credentials still discovers the service
			try (CuratorFramework anonymous = observer(a())) {
				List<String> instances = anonymous.getChildren().forPath("/services/" + this.service);
				assertThat(instances).hasSize(1);
				String instance = new String(
						anonymous.getData().forPath("/services/" + this.service + "/" + instances.get(0)),
						StandardCharsets.UTF_8);
				assertThat(instance).contains("\"name\":\"" + this.service + "\"").contains("127.0.0.1");
			}
		}
	}

	@Test
	void zkLockSharesAUsersOwnClientAndLeavesItAloneWhenGivenItsOwnSettings() throws Exception {
		try (ConfigurableApplicationContext app = start(UsersClient.class, "spring.cloud.zookeeper.enabled=false",
				"users.connect-string=" + a())) {
			CuratorFramework mine = app.getBean("usersClient", CuratorFramework.class);
			assertThat(app.getBean(ZkLockClient.class).getSharedBeanName()).isEqualTo("usersClient");
			try (LockHandle lock = lock(app, "users-shared")) {
				assertThat(owner(onA, lock.nodePath())).isEqualTo(sessionId(mine));
			}
		}
		try (ConfigurableApplicationContext app = start(UsersClient.class, "spring.cloud.zookeeper.enabled=false",
				"users.connect-string=" + a(), "zk-lock.connect-string=" + b(), "zk-lock.namespace=elsewhere")) {
			CuratorFramework mine = app.getBean("usersClient", CuratorFramework.class);
			ZkLockClient zkLock = app.getBean(ZkLockClient.class);
			assertThat(zkLock.isShared()).isFalse();
			assertThat(app.getBean(CuratorFramework.class)).isSameAs(mine);
			assertThat(mine.getZookeeperClient().getCurrentConnectionString()).isEqualTo(a());
			assertThat(mine.getNamespace()).isEmpty();
			try (LockHandle lock = lock(app, "users-untouched")) {
				assertThat(owner(onB, "/elsewhere" + lock.nodePath())).isEqualTo(sessionId(zkLock.getCuratorFramework()));
				assertThat(onA.checkExists().forPath("/elsewhere")).isNull();
			}
		}
	}

	@Test
	void aConfigDataClientRegisteredAsASingletonIsSharedOrLeftAlone() throws Exception {
		// what Spring Cloud Zookeeper Config does with the client it read the configuration with
		try (CuratorFramework configData = observer(a())) {
			try (ConfigurableApplicationContext app = start((context) -> context.getBeanFactory()
				.registerSingleton("configDataCuratorFramework", configData),
					"spring.cloud.zookeeper.connect-string=" + a())) {
				assertThat(app.getBean(ZkLockClient.class).getSharedBeanName()).isEqualTo("configDataCuratorFramework");
				String registration = awaitRegistration(onA);
				try (LockHandle lock = lock(app, "config-data-shared")) {
					assertThat(owner(onA, lock.nodePath())).isEqualTo(sessionId(configData));
					assertThat(owner(onA, registration)).isEqualTo(sessionId(configData));
				}
			}
			try (ConfigurableApplicationContext app = start((context) -> context.getBeanFactory()
				.registerSingleton("configDataCuratorFramework", configData),
					"spring.cloud.zookeeper.connect-string=" + a(), "zk-lock.connect-string=" + b())) {
				ZkLockClient zkLock = app.getBean(ZkLockClient.class);
				assertThat(zkLock.isShared()).isFalse();
				String registration = awaitRegistration(onA);
				assertThat(owner(onA, registration)).isEqualTo(sessionId(configData));
				try (LockHandle lock = lock(app, "config-data-untouched")) {
					assertThat(owner(onB, lock.nodePath())).isEqualTo(sessionId(zkLock.getCuratorFramework()));
				}
			}
		}
	}

	private ConfigurableApplicationContext start(String... properties) {
		return builder(null, properties).run();
	}

	private ConfigurableApplicationContext start(ApplicationContextInitializer<ConfigurableApplicationContext> initializer,
			String... properties) {
		return builder(null, properties).initializers(initializer).run();
	}

	private ConfigurableApplicationContext start(Class<?> extra, String... properties) {
		return builder(extra, properties).run();
	}

	private SpringApplicationBuilder builder(Class<?> extra, String... properties) {
		SpringApplicationBuilder builder = NeighbourApps.builder(this.service, properties);
		return (extra != null) ? builder.sources(extra) : builder;
	}

	private LockHandle lock(ConfigurableApplicationContext app, String name) {
		LockHandle handle = app.getBean(LockManager.class).acquire(LockRequest.named(name).build());
		assertThat(handle.isAcquired()).isTrue();
		return handle;
	}

	private String awaitRegistration(CuratorFramework observer) {
		String parent = "/services/" + this.service;
		await().atMost(REGISTRATION_WAIT).until(() -> children(observer, parent).size() == 1);
		try {
			return parent + "/" + observer.getChildren().forPath(parent).get(0);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String a() {
		return serverA.connectString();
	}

	private static String b() {
		return serverB.connectString();
	}

	/**
	 * A client of the application's own, on the server that {@code users.connect-string}
	 * names. Registered as a source, not scanned.
	 */
	static class UsersClient {

		@Bean(destroyMethod = "close")
		CuratorFramework usersClient(org.springframework.core.env.Environment environment) {
			CuratorFramework client = CuratorFrameworkFactory.newClient(
					environment.getRequiredProperty("users.connect-string"), new RetryOneTime(100));
			client.start();
			return client;
		}

	}

}
