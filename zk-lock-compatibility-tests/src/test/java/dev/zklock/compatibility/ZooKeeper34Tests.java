package dev.zklock.compatibility;

import java.time.Duration;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.autoconfigure.UnsupportedZooKeeperServerException;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.LockManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A ZooKeeper 3.4 server lacks {@code create2}: an application whose zk-lock client,
 * dedicated or shared with Spring Cloud, connects to one fails at startup with a
 * message that names the server version and the operation. Past that check (a lock
 * manager of one's own), every mode fails with a LockException caused by the server's
 * refusal, never a NullPointerException. The same application starts against a 3.5
 * server (the control).
 */
@ExtendWith(OutputCaptureExtension.class)
class ZooKeeper34Tests {

	private static OldZooKeeperServer zooKeeper34;

	private static OldZooKeeperServer zooKeeper35;

	@BeforeAll
	static void startServers() {
		zooKeeper34 = OldZooKeeperServer.start("3.4");
		zooKeeper35 = OldZooKeeperServer.start("3.5");
	}

	@AfterAll
	static void stopServers() {
		zooKeeper34.close();
		zooKeeper35.close();
	}

	@Test
	void aDedicatedClientOn34FailsStartupNamingTheVersionAndTheOperation(CapturedOutput output) {
		assertThat(zooKeeper34.version()).startsWith("3.4.");
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> start("spring.cloud.zookeeper.enabled=false",
					"zk-lock.connect-string=" + zooKeeper34.connectString()))
			.havingRootCause()
			.isInstanceOf(UnsupportedZooKeeperServerException.class)
			.withMessageContaining("runs ZooKeeper " + zooKeeper34.version())
			.withMessageContaining("lacks the 'create2' operation");
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("which runs ZooKeeper " + zooKeeper34.version() + ". That server lacks the 'create2' operation")
			.doesNotContain("NullPointerException");
	}

	@Test
	void aSharedSpringCloudClientOn34FailsStartupToo() {
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> start("spring.cloud.zookeeper.connect-string=" + zooKeeper34.connectString()))
			.havingRootCause()
			.isInstanceOf(UnsupportedZooKeeperServerException.class)
			.withMessageContaining("runs ZooKeeper " + zooKeeper34.version());
	}

	// A client of its own per mode: a 3.4 server answers an unknown operation with UNIMPLEMENTED and then closes
	// the connection, so a request sent on that connection after the answer may fail with a connection loss instead
	@Test
	void pastTheStartupCheckNoModeSurfacesANullPointerException() throws Exception {
		for (LockMode mode : LockMode.values()) {
			try (CuratorFramework client = ZooKeeperServers.observer(zooKeeper34.connectString())) {
				CuratorLockManager manager = new CuratorLockManager(client, "/locks", Duration.ofSeconds(5));
				assertThatExceptionOfType(LockException.class)
					.as("%s on ZooKeeper %s", mode, zooKeeper34.version())
					.isThrownBy(() -> manager.acquire(LockRequest.named("refused").mode(mode).build()))
					.withRootCauseInstanceOf(KeeperException.UnimplementedException.class);
				manager.close();
			}
		}
	}

	@Test
	void theSameApplicationStartsAndLocksOn35() {
		for (List<String> properties : List.of(
				List.of("spring.cloud.zookeeper.enabled=false", "zk-lock.connect-string=" + zooKeeper35.connectString()),
				List.of("spring.cloud.zookeeper.connect-string=" + zooKeeper35.connectString()))) {
			try (ConfigurableApplicationContext app = start(properties.toArray(String[]::new));
					LockHandle lock = app.getBean(LockManager.class).acquire(LockRequest.named("on-35").build())) {
				assertThat(lock.isAcquired()).isTrue();
			}
		}
	}

	private ConfigurableApplicationContext start(String... properties) {
		return NeighbourApps.builder("zk34", properties).run();
	}

}
