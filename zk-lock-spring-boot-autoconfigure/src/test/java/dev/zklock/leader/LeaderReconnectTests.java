package dev.zklock.leader;

import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.LeaderElection;
import dev.zklock.LeadershipRevocationReason;
import dev.zklock.aop.TestZooKeeper;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockLeaderAutoConfiguration;
import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.StoppableZooKeeper;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The ZooKeeper server stops for less than the session timeout and comes back:
 * under the SUSPENDED policy the leadership is revoked at once, and once the
 * client reconnects with the same session the instance joins again and leads
 * with a new token, its old node deleted.
 */
class LeaderReconnectTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@RegisterExtension
	static final ClassFixture<StoppableZooKeeper> server = ClassFixture.of(StoppableZooKeeper::start);

	@Test
	void suspensionRevokesAndTheSameSessionJoinsAgain() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class,
					DistributedLockAutoConfiguration.class, ZkLockLeaderAutoConfiguration.class))
			.withBean(CuratorFramework.class, () -> server.get().newClient(8_000),
					(definition) -> definition.setDestroyMethodName("close"))
			.withBean(PollerJob.class)
			.withBean(LeadershipRecorder.class)
			.withPropertyValues("zk-lock.base-path=/reconnect")
			.run((context) -> {
				LeaderElection election = context.getBean(LeaderElection.class);
				assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
				LeadershipRecorder events = context.getBean(LeadershipRecorder.class);
				long first = events.lastToken();
				CuratorFramework client = context.getBean(CuratorFramework.class);
				long session = ZooKeeperSessions.sessionId(client);

				server.get().stop();
				await().atMost(WAIT).until(() -> events.revoked.size() == 1);
				assertThat(election.isLeader(PollerJob.ROLE)).isFalse();
				// while ZooKeeper is down a non-leader skips at once, as a try with timeout 0 must (#28)
				long start = System.nanoTime();
				assertThat(context.getBean(PollerJob.class).poll(null)).isEmpty();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(250));
				server.get().restart();

				assertThat(election.awaitLeadership(PollerJob.ROLE, WAIT)).isTrue();
				assertThat(ZooKeeperSessions.sessionId(client)).isEqualTo(session);
				assertThat(events.revoked).singleElement().satisfies((event) -> {
					assertThat(event.getReason()).isEqualTo(LeadershipRevocationReason.CONNECTION_SUSPENDED);
					assertThat(event.getFencingToken()).isEqualTo(first);
				});
				assertThat(events.granted).hasSize(2);
				assertThat(events.lastToken()).isGreaterThan(first);
				await().atMost(WAIT).until(() -> TestZooKeeper.ephemeralNodes(client, "/reconnect") == 1);
				assertThat(context.getBean(PollerJob.class).poll(null)).contains(events.lastToken());
			});
	}

}
