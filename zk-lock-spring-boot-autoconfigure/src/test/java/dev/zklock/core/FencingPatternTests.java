package dev.zklock.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import dev.zklock.LockContext;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The two ways a resource checks fencing tokens, as docs/failures.md shows them, with a
 * holder whose session expires in the middle of its critical section (a long
 * pause) and a second holder that takes over: the resource rejects the late write.
 */
class FencingPatternTests extends AbstractZooKeeperTests {

	@Test
	void sqlUpdateWithFenceRejectsTheWriteOfAHolderThatLostItsLock() throws Exception {
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(
				"jdbc:h2:mem:fence-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1"));
		jdbc.execute("create table account (id varchar(20) primary key, balance bigint not null, "
				+ "fence bigint not null default 0)");
		jdbc.update("insert into account (id, balance) values ('acc-1', 100)");
		LockRequest request = LockRequest.named("account").keys("acc-1").build();
		CuratorFramework pausedClient = ZooKeeperTestSupport.startClient(server.getConnectString());
		try (CuratorLockManager pausedManager = new CuratorLockManager(pausedClient, this.basePath,
				Duration.ofSeconds(10))) {
			LockHandle paused = pausedManager.acquire(request);
			long stale = paused.fencingToken();
			// the holder pauses past its session timeout; a second holder takes over
			ZooKeeperSessions.expire(pausedClient);
			try (LockHandle next = this.manager.acquire(request)) {
				assertThat(credit(jdbc, 10, next.fencingToken())).isOne();
			}
			// the paused holder resumes and writes with its old token
			assertThat(credit(jdbc, 1_000, stale)).isZero();
			await().atMost(Duration.ofSeconds(30)).until(() -> !paused.isHeld());
			paused.close();
		}
		finally {
			pausedClient.close();
		}
		assertThat(jdbc.queryForObject("select balance from account where id = 'acc-1'", Long.class)).isEqualTo(110);
	}

	@Test
	void multiOpWithACheckOnTheHoldersNodeFailsOnceTheLockIsLost() throws Exception {
		String dataPath = this.basePath + "-data/feature";
		client.create().creatingParentsIfNeeded().forPath(dataPath, bytes("off"));
		LockRequest request = LockRequest.named("feature").build();
		CuratorFramework pausedClient = ZooKeeperTestSupport.startClient(server.getConnectString());
		try (CuratorLockManager pausedManager = new CuratorLockManager(pausedClient, this.basePath,
				Duration.ofSeconds(10))) {
			LockHandle paused = pausedManager.acquire(request);
			assertThat(ZooKeeperTestSupport.ephemeralNodes(client, this.basePath)).containsExactly(paused.nodePath());
			assertThat(LockContext.current().nodePath()).isEqualTo(paused.nodePath());
			setGuarded(pausedClient, paused.nodePath(), dataPath, "on");
			assertThat(client.getData().forPath(dataPath)).asString(StandardCharsets.UTF_8).isEqualTo("on");
			ZooKeeperSessions.expire(pausedClient);
			await().atMost(Duration.ofSeconds(30)).until(() -> pausedClient.getZookeeperClient().isConnected());
			assertThatExceptionOfType(KeeperException.NoNodeException.class)
				.isThrownBy(() -> setGuarded(pausedClient, paused.nodePath(), dataPath, "stale"));
			assertThat(client.getData().forPath(dataPath)).asString(StandardCharsets.UTF_8).isEqualTo("on");
			paused.close();
		}
		finally {
			pausedClient.close();
		}
	}

	// docs/failures.md: UPDATE ... SET ..., fence = ? WHERE id = ? AND fence <= ?
	private static int credit(JdbcTemplate jdbc, long amount, long token) {
		return jdbc.update("update account set balance = balance + ?, fence = ? where id = ? and fence <= ?", amount,
				token, "acc-1", token);
	}

	// docs/failures.md: a multi-op that checks the holder's own node
	private static void setGuarded(CuratorFramework client, String lockNode, String dataPath, String value)
			throws Exception {
		client.transaction()
			.forOperations(client.transactionOp().check().forPath(lockNode),
					client.transactionOp().setData().forPath(dataPath, bytes(value)));
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
