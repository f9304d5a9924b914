package dev.zklock.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.mock.env.MockEnvironment;

import dev.zklock.autoconfigure.ZkLockProperties.ClientMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The rule that picks zk-lock's client, and how zk-lock's connection settings are
 * found in the environment. Pure logic.
 */
class ZkLockClientRuleTests {

	private static final List<String> NONE = List.of();

	private static final String CLOUD = "zk1:2181";

	@Test
	void autoSharesTheOnlyBeanWhenNoSettingIsGiven() {
		assertThat(rule(ClientMode.AUTO, NONE, List.of("curatorFramework"), null, false, CLOUD).sharedBeanName())
			.isEqualTo("curatorFramework");
	}

	@Test
	void autoIsDedicatedWithASettingOrWithoutABean() {
		assertThat(rule(ClientMode.AUTO, List.of("zk-lock.namespace"), List.of("curatorFramework"), null, false, null)
			.sharedBeanName()).isNull();
		assertThat(rule(ClientMode.AUTO, NONE, NONE, null, false, null).sharedBeanName()).isNull();
		assertThat(rule(ClientMode.AUTO, List.of("zk-lock.connect-string"), NONE, null, true, CLOUD).sharedBeanName())
			.isNull();
	}

	@Test
	void severalBeansNeedAPrimary() {
		List<String> two = List.of("a", "b");
		assertThat(rule(ClientMode.AUTO, NONE, two, "b", false, null).sharedBeanName()).isEqualTo("b");
		assertThatExceptionOfType(ZkLockClientModeException.class)
			.isThrownBy(() -> rule(ClientMode.SHARED, NONE, two, null, false, null).sharedBeanName())
			.withMessageContaining("zk-lock.client-mode=shared found 2 CuratorFramework beans to share (a, b)")
			.withMessageContaining("@Primary");
	}

	@Test
	void sharedWithSettingsNamesEveryOne() {
		assertThatExceptionOfType(ZkLockClientModeException.class)
			.isThrownBy(() -> rule(ClientMode.SHARED, List.of("zk-lock.auth.scheme", "zk-lock.connect-string"),
					List.of("curatorFramework"), null, true, null)
				.sharedBeanName())
			.satisfies((ex) -> {
				assertThat(ex.getReason()).isEqualTo("zk-lock.client-mode=shared contradicts zk-lock.auth.scheme, "
						+ "zk-lock.connect-string: a shared client keeps the connection settings of its owner.");
				assertThat(ex.getAction()).contains("zk-lock.client-mode=dedicated");
			});
	}

	@Test
	void sharedWithoutABeanNamesSpringCloudsConnectStringWhenSet() {
		assertThatExceptionOfType(ZkLockClientModeException.class)
			.isThrownBy(() -> rule(ClientMode.SHARED, NONE, NONE, null, false, CLOUD).sharedBeanName())
			.withMessageContaining("no CuratorFramework bean to share (spring.cloud.zookeeper.connect-string='"
					+ CLOUD + "' is set");
		assertThatExceptionOfType(ZkLockClientModeException.class)
			.isThrownBy(() -> rule(ClientMode.SHARED, NONE, NONE, null, false, null).sharedBeanName())
			.withMessageNotContaining("spring.cloud");
	}

	@Test
	void aDedicatedClientWithoutAConnectStringFailsOnlyWhenSpringCloudHasOne() {
		assertThatExceptionOfType(ZkLockClientModeException.class)
			.isThrownBy(() -> rule(ClientMode.DEDICATED, NONE, List.of("curatorFramework"), null, false, CLOUD)
				.sharedBeanName())
			.withMessageStartingWith("zk-lock.client-mode=dedicated and zk-lock.connect-string is not set, while "
					+ "spring.cloud.zookeeper.connect-string='" + CLOUD + "' is");
		assertThat(rule(ClientMode.DEDICATED, NONE, List.of("curatorFramework"), null, false, null).sharedBeanName())
			.isNull();
		assertThat(rule(ClientMode.DEDICATED, NONE, NONE, null, true, CLOUD).sharedBeanName()).isNull();
	}

	@Test
	void connectionSettingsAreFoundByTheirCanonicalNames() {
		MockEnvironment environment = new MockEnvironment().withProperty("zk-lock.connect-string", "a:1")
			.withProperty("zk-lock.sessionTimeout", "5s")
			.withProperty("zk-lock.auth.scheme", "digest")
			.withProperty("zk-lock.ssl.bundle", "zk")
			.withProperty("zk-lock.tls.trust-store", "t.p12")
			.withProperty("zk-lock.base-path", "/elsewhere")
			.withProperty("zk-lock.retry.max-retries", "3")
			.withProperty("spring.cloud.zookeeper.connect-string", CLOUD);
		assertThat(ZkLockConnectionSettings.given(environment)).containsExactly("zk-lock.auth.scheme",
				"zk-lock.connect-string", "zk-lock.session-timeout", "zk-lock.ssl.bundle");
		environment.setProperty("zk-lock.tls.enabled", "true");
		environment.setProperty("zk-lock.embedded.enabled", "true");
		assertThat(ZkLockConnectionSettings.given(environment)).contains("zk-lock.tls.enabled",
				"zk-lock.tls.trust-store", "zk-lock.embedded.enabled");
		assertThat(ZkLockConnectionSettings.hasConnectString(environment)).isTrue();
		assertThat(ZkLockConnectionSettings.springCloudConnectString(environment)).isEqualTo(CLOUD);
		assertThat(ZkLockConnectionSettings.given(new MockEnvironment())).isEmpty();
	}

	private static ZkLockClientRule rule(ClientMode mode, List<String> settings, List<String> candidates,
			String primary, boolean hasConnectString, String springCloudConnectString) {
		return new ZkLockClientRule(mode, settings, candidates, primary, hasConnectString, springCloudConnectString);
	}

}
