package dev.zklock.core;

import java.time.Duration;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;

import dev.zklock.LockException;
import dev.zklock.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A lock failure names what went wrong: only a connection problem points at the
 * connection; a refusal by the server is named as what it is.
 */
class FailureAdviceTests extends AbstractZooKeeperTests {

	@Test
	void aConnectionProblemPointsAtTheConnection() {
		assertThat(FailureAdvice.forCode(KeeperException.Code.CONNECTIONLOSS, null, "/locks"))
			.contains("connection problem (CONNECTIONLOSS)")
			.contains("zk-lock.connect-string");
		assertThat(FailureAdvice.forCode(null, null, "/locks")).contains("zk-lock.connect-string");
	}

	@Test
	void aRefusalByTheServerIsNamedAndDoesNotBlameTheConnection() {
		assertThat(FailureAdvice.forCode(KeeperException.Code.QUOTAEXCEEDED, "/locks/a", "/locks"))
			.contains("quota on /locks/a is exceeded")
			.doesNotContain("connect-string");
		assertThat(FailureAdvice.forCode(KeeperException.Code.NOAUTH, null, "/locks"))
			.contains("a node under /locks (NoAuth)")
			.contains("zk-lock.auth.credentials");
		assertThat(FailureAdvice.forCode(KeeperException.Code.NOTEMPTY, "/locks/a", "/locks"))
			.contains("(NOTEMPTY); this is not a connection problem");
	}

	@Test
	void aBasePathUnderAnEphemeralNodeIsReportedAsSuch() throws Exception {
		String ephemeral = this.basePath + "-ephemeral";
		client.create().withMode(CreateMode.EPHEMERAL).forPath(ephemeral);
		try (CuratorLockManager locks = new CuratorLockManager(client, ephemeral + "/locks", Duration.ofSeconds(5))) {
			assertThatExceptionOfType(LockException.class)
				.isThrownBy(() -> locks.acquire(LockRequest.named("report").keys("daily").build()))
				.withMessageContaining("Could not acquire lock 'report' key 'daily'")
				.withMessageContaining("NoChildrenForEphemerals")
				.withMessageContaining("zk-lock.base-path")
				.withMessageNotContaining("connect-string");
		}
		finally {
			client.delete().forPath(ephemeral);
		}
	}

}
