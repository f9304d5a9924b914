package dev.zklock.compatibility;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
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

	// A client of its own per mode, and with no request of its own: a 3.4 server answers an unknown operation
	// (create2) at once, ahead of any request still in its pipeline, and then closes the connection. The client
	// takes a reply that overtakes an earlier request for a broken connection ("Xid out of order") and fails both
	// with a connection loss. Curator's ensemble tracker sends such a request, a read of /zookeeper/config, on
	// every (re)connection, so with it a mode could end in ConnectionLossException instead (docs/failures.md).
	@Test
	void pastTheStartupCheckNoModeSurfacesANullPointerException(CapturedOutput output) throws Exception {
		// five rounds: with a request of the client's own in flight, one try in three or so was overtaken
		for (int round = 0; round < 5; round++) {
			for (LockMode mode : LockMode.values()) {
				tryOn34(mode);
			}
		}
		assertThat(output).as("no reply overtook a request of the test's clients").doesNotContain("Xid out of order");
	}

	private static void tryOn34(LockMode mode) throws InterruptedException {
		try (CuratorFramework client = clientWithoutRequestsOfItsOwn(zooKeeper34.connectString())) {
			CuratorLockManager manager = new CuratorLockManager(client, "/locks", Duration.ofSeconds(5));
			assertThatExceptionOfType(LockException.class).as("%s on ZooKeeper %s", mode, zooKeeper34.version())
				.isThrownBy(() -> manager.acquire(LockRequest.named("refused").mode(mode).build()))
				.withRootCauseInstanceOf(KeeperException.UnimplementedException.class);
			manager.close();
		}
	}

	// What the test above rests on: alone on its connection, an unknown operation is answered UNIMPLEMENTED
	// before the server closes the connection, every time
	@Test
	void anUnknownOperationAloneOnItsConnectionIsAnsweredBeforeTheClose() throws Exception {
		for (int i = 0; i < 20; i++) {
			CountDownLatch connected = new CountDownLatch(1);
			ZooKeeper zooKeeper = new ZooKeeper(zooKeeper34.connectString(), 10_000, (event) -> {
				if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
					connected.countDown();
				}
			});
			try {
				assertThat(connected.await(20, TimeUnit.SECONDS)).as("connected").isTrue();
				CompletableFuture<KeeperException.Code> answer = new CompletableFuture<>();
				// with a Create2Callback the client sends create2, which 3.4 does not know
				zooKeeper.create("/unknown-operation", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT,
						(rc, path, ctx, name, stat) -> answer.complete(KeeperException.Code.get(rc)), null);
				assertThat(answer.get(20, TimeUnit.SECONDS)).as("answer %d", i)
					.isEqualTo(KeeperException.Code.UNIMPLEMENTED);
			}
			finally {
				zooKeeper.close();
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

	private static CuratorFramework clientWithoutRequestsOfItsOwn(String connectString) throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.retryPolicy(new RetryOneTime(100))
			.ensembleTracker(false)
			.build();
		client.start();
		if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
			client.close();
			throw new IllegalStateException("Could not connect to " + connectString);
		}
		return client;
	}

	private ConfigurableApplicationContext start(String... properties) {
		return NeighbourApps.builder("zk34", properties).run();
	}

}
