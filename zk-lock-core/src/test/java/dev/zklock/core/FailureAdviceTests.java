package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.schema.Schema;
import org.apache.curator.framework.schema.SchemaSet;
import org.apache.curator.retry.RetryOneTime;
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
	void aFailureInTheClientIsNamedAndDoesNotBlameTheConnection() {
		assertThat(FailureAdvice.forFailure(new IllegalArgumentException("refused by a schema"), "/locks"))
			.contains("(IllegalArgumentException); this is not a connection problem")
			.doesNotContain("connect-string");
		assertThat(FailureAdvice.forFailure(new IllegalStateException(new java.io.IOException("reset")), "/locks"))
			.contains("zk-lock.connect-string");
		assertThat(FailureAdvice.forFailure(new RuntimeException(KeeperException.create(KeeperException.Code.NOAUTH,
				"/locks/a")), "/locks"))
			.contains("/locks/a (NoAuth)");
	}

	@Test
	void aSchemaViolationIsNamedAndDoesNotBlameTheConnection() throws Exception {
		// a schema that allows only persistent nodes below the base path, as an operator's Curator schema could
		Schema persistentOnly = Schema.builder(Pattern.compile(Pattern.quote(this.basePath) + "/.*"))
			.name("persistent-only")
			.ephemeral(Schema.Allowance.CANNOT)
			.sequential(Schema.Allowance.CANNOT)
			.build();
		try (CuratorFramework schemaClient = CuratorFrameworkFactory.builder()
			.connectString(server.getConnectString())
			.retryPolicy(new RetryOneTime(100))
			.schemaSet(new SchemaSet(List.of(persistentOnly), true))
			.build()) {
			schemaClient.start();
			schemaClient.blockUntilConnected(10, TimeUnit.SECONDS);
			try (CuratorLockManager locks = new CuratorLockManager(schemaClient, this.basePath, Duration.ofSeconds(5))) {
				assertThatExceptionOfType(LockException.class)
					.isThrownBy(() -> locks.acquire(LockRequest.named("report").keys("daily").build()))
					.withMessageContaining("Could not acquire lock 'report' key 'daily'")
					.withMessageContaining("not a connection problem")
					.withMessageNotContaining("connect-string");
			}
		}
		assertThat(ephemeralNodes()).isEmpty();
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
