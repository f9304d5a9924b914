package dev.zklock.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link ZooKeeperProcess}.
 */
class ZooKeeperProcessTests {

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(2);

	@Test
	void clientWritesAndReadsAcrossKillAndRestart() throws Exception {
		List<ConnectionState> states = new CopyOnWriteArrayList<>();
		Path directory;
		try (ZooKeeperProcess zookeeper = ZooKeeperProcess.builder().tickTime(Duration.ofMillis(500)).start();
				CuratorFramework client = TestClients.connect(zookeeper.connectString(), SESSION_TIMEOUT, states)) {
			directory = zookeeper.dataDirectory().getParent();
			assertThat(zookeeper.pid()).isNotEqualTo(ProcessHandle.current().pid());
			TestClients.writeAndRead(client, "/fixture/process", "before kill");
			long killedPid = zookeeper.pid();
			zookeeper.kill();
			assertThat(zookeeper.isRunning()).isFalse();
			assertThat(ProcessHandle.of(killedPid)).isEmpty();
			await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(ConnectionState.SUSPENDED));
			zookeeper.start();
			assertThat(zookeeper.pid()).isNotEqualTo(killedPid);
			assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
			assertThat(TestClients.read(client, "/fixture/process")).isEqualTo("before kill");
			TestClients.writeAndRead(client, "/fixture/process", "after restart");
		}
		assertThat(directory).doesNotExist();
	}

	@Test
	void pausedServerAnswersNothingUntilResumed() throws Exception {
		List<ConnectionState> states = new CopyOnWriteArrayList<>();
		try (ZooKeeperProcess zookeeper = ZooKeeperProcess.builder().tickTime(Duration.ofMillis(500)).start();
				CuratorFramework client = TestClients.connect(zookeeper.connectString(), SESSION_TIMEOUT, states)) {
			TestClients.writeAndRead(client, "/fixture/paused", "before pause");
			zookeeper.pause();
			assertThat(zookeeper.isPaused()).isTrue();
			assertThat(zookeeper.isRunning()).isTrue();
			assertThat(FourLetterWords.mode(zookeeper.port())).isEqualTo(ServerMode.UNREACHABLE);
			await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(ConnectionState.SUSPENDED));
			zookeeper.resume();
			zookeeper.awaitServing();
			assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
			assertThat(TestClients.read(client, "/fixture/paused")).isEqualTo("before pause");
			TestClients.writeAndRead(client, "/fixture/paused", "after resume");
		}
	}

	@Test
	void serverThatCannotStartIsReportedWithItsLog() {
		long start = System.nanoTime();
		assertThatIllegalStateException()
			.isThrownBy(() -> ZooKeeperProcess.builder().jvmOptions(List.of("-XX:+NoSuchJvmOption")).start())
			.withMessageContaining("exited with status")
			.withMessageContaining("NoSuchJvmOption");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
	}

	@Test
	void serverOutputGoesToLogFile() throws Exception {
		try (ZooKeeperProcess zookeeper = ZooKeeperProcess.builder().start()) {
			assertThat(Files.readString(zookeeper.logFile())).contains("binding to port /127.0.0.1:" + zookeeper.port());
		}
	}

}
