package dev.zklock.testsupport;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.zklock.testsupport.ZooKeeperEnsemble.Member;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link ZooKeeperEnsemble}: one 3-member ensemble for the class, whole again
 * after each test.
 */
@TestInstance(Lifecycle.PER_CLASS)
class ZooKeeperEnsembleTests {

	private static final Logger logger = LoggerFactory.getLogger(ZooKeeperEnsembleTests.class);

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(6);

	private ZooKeeperEnsemble ensemble;

	@BeforeAll
	void startEnsemble() {
		long start = System.nanoTime();
		this.ensemble = ZooKeeperEnsemble.builder().tickTime(Duration.ofMillis(500)).start();
		logger.info("Ensemble {} has a quorum after {} ms; modes {}", this.ensemble.connectString(),
				(System.nanoTime() - start) / 1_000_000, this.ensemble.modes());
	}

	@AfterAll
	void closeEnsemble() {
		if (this.ensemble != null) {
			this.ensemble.close();
		}
	}

	@AfterEach
	void makeWhole() {
		for (Member member : this.ensemble.members()) {
			if (member.isPaused()) {
				member.resume();
			}
			member.start();
		}
		this.ensemble.awaitQuorum();
	}

	@Test
	void exactlyOneMemberLeads() {
		Member leader = this.ensemble.leader();
		logger.info("Leader: {}; modes {}", leader, this.ensemble.modes());
		assertThat(this.ensemble.modes().values()).containsOnly(ServerMode.LEADER, ServerMode.FOLLOWER)
			.containsOnlyOnce(ServerMode.LEADER);
		assertThat(this.ensemble.modes()).containsEntry(leader.id(), ServerMode.LEADER);
	}

	// the new leader's epoch is higher; the members' logs are copied out of the directories close() deletes
	@Test
	void killedLeaderIsReplaced(@TempDir Path kept) {
		Member leader = this.ensemble.leader();
		long epoch = FourLetterWords.epoch(leader.clientPort());
		long start = System.nanoTime();
		leader.kill();
		Member newLeader = this.ensemble.leader();
		logger.info("Killed leader {}; {} leads after {} ms", leader, newLeader, (System.nanoTime() - start) / 1_000_000);
		assertThat(newLeader).isNotEqualTo(leader);
		assertThat(leader.mode()).isEqualTo(ServerMode.UNREACHABLE);
		assertThat(FourLetterWords.epoch(newLeader.clientPort())).isGreaterThan(epoch);
		leader.restart();
		assertThat(leader.mode()).isEqualTo(ServerMode.FOLLOWER);
		List<Path> logs = this.ensemble.keepLogs(kept);
		assertThat(logs).hasSize(3).allSatisfy((log) -> assertThat(log).content().contains("LEADER ELECTION TOOK"));
		assertThat(kept.resolve("ensemble-member-" + leader.id() + ".log")).exists();
	}

	@Test
	void clientKeepsWorkingWhenItsMemberIsKilled() throws Exception {
		List<ConnectionState> states = new CopyOnWriteArrayList<>();
		try (CuratorFramework client = TestClients.connect(this.ensemble.connectString(), SESSION_TIMEOUT, states)) {
			TestClients.writeAndRead(client, "/fixture/ensemble", "before kill");
			Member connected = awaitConnectedMember(client);
			boolean wasLeader = connected.mode() == ServerMode.LEADER;
			long start = System.nanoTime();
			connected.kill();
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(100))
				.ignoreExceptions()
				.untilAsserted(() -> {
					assertThat(this.ensemble.memberConnectedTo(client)).isPresent().get().isNotEqualTo(connected);
					TestClients.writeAndRead(client, "/fixture/ensemble", "after kill");
				});
			Member now = awaitConnectedMember(client);
			logger.info("Killed {} (was {}), client moved to {} and wrote after {} ms; states {}; leader now {}",
					connected, wasLeader ? "leader" : "follower", now, (System.nanoTime() - start) / 1_000_000, states,
					this.ensemble.leader());
			assertThat(states).contains(ConnectionState.SUSPENDED);
			connected.restart();
			assertThat(connected.mode().isServing()).isTrue();
			this.ensemble.awaitQuorum();
			assertThat(TestClients.read(client, "/fixture/ensemble")).isEqualTo("after kill");
			logger.info("Restarted {}; modes {}", connected, this.ensemble.modes());
		}
	}

	@Test
	void clientMovesAwayFromPausedMember() throws Exception {
		List<ConnectionState> states = new CopyOnWriteArrayList<>();
		try (CuratorFramework client = TestClients.connect(this.ensemble.connectString(), SESSION_TIMEOUT, states)) {
			Member connected = awaitConnectedMember(client);
			connected.pause();
			assertThat(connected.isPaused()).isTrue();
			assertThat(FourLetterWords.mode(connected.clientPort())).isEqualTo(ServerMode.UNREACHABLE);
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(100))
				.ignoreExceptions()
				.untilAsserted(() -> {
					assertThat(this.ensemble.memberConnectedTo(client)).isPresent().get().isNotEqualTo(connected);
					TestClients.writeAndRead(client, "/fixture/paused-member", "written while paused");
				});
			connected.resume();
			connected.awaitServing();
			logger.info("Paused {}, client moved to {}; states {}", connected, awaitConnectedMember(client), states);
		}
	}

	private Member awaitConnectedMember(CuratorFramework client) {
		return await().atMost(Duration.ofSeconds(10))
			.until(() -> this.ensemble.memberConnectedTo(client).orElse(null), (member) -> member != null);
	}

}
