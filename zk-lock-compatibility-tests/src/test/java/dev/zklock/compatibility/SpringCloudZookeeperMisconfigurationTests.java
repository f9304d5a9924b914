package dev.zklock.compatibility;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import dev.zklock.autoconfigure.ZkLockClientModeException;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Settings that contradict each other stop an application with zk-lock and Spring Cloud
 * Zookeeper discovery at startup, with a failure report that names them.
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringCloudZookeeperMisconfigurationTests {

	private static InJvmZooKeeper serverA;

	@BeforeAll
	static void startServer() {
		serverA = InJvmZooKeeper.builder().start();
	}

	@AfterAll
	static void stopServer() {
		serverA.close();
	}

	@Test
	void sharedWithAZkLockConnectStringFailsNamingBoth(CapturedOutput output) {
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> start("spring.cloud.zookeeper.connect-string=" + a(), "zk-lock.client-mode=shared",
					"zk-lock.connect-string=" + b()))
			.havingRootCause()
			.isInstanceOf(ZkLockClientModeException.class)
			.withMessageContaining("zk-lock.client-mode=shared contradicts zk-lock.connect-string");
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("zk-lock.client-mode=shared contradicts zk-lock.connect-string");
	}

	@Test
	void sharedWithNoClientToShareFails(CapturedOutput output) {
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> start("spring.cloud.zookeeper.enabled=false", "zk-lock.client-mode=shared"))
			.havingRootCause()
			.isInstanceOf(ZkLockClientModeException.class)
			.withMessageContaining("zk-lock.client-mode=shared but the application has no CuratorFramework bean");
		assertThat(output).contains("APPLICATION FAILED TO START");
	}

	@Test
	void noClientAndNoConnectStringNamesSpringCloudsConnectString(CapturedOutput output) {
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> start("spring.cloud.zookeeper.enabled=false",
					"spring.cloud.zookeeper.connect-string=" + a()))
			.havingRootCause()
			.isInstanceOf(ZkLockClientModeException.class)
			.withMessageContaining("zk-lock.connect-string is not set, while spring.cloud.zookeeper.connect-string='"
					+ a() + "' is");
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("spring.cloud.zookeeper.connect-string='" + a() + "'");
	}

	private ConfigurableApplicationContext start(String... properties) {
		return NeighbourApps.builder("misconfigured", properties).run();
	}

	private static String a() {
		return serverA.connectString();
	}

	private static String b() {
		return "127.0.0.1:1";
	}

}
