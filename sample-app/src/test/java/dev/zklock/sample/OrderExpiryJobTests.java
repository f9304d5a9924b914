package dev.zklock.sample;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.zklock.LeaderElection;
import dev.zklock.LockRequest;
import dev.zklock.actuate.LeadersEndpoint;
import dev.zklock.core.AsyncLockHandle;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.leader.CuratorLeaderElection;
import dev.zklock.sample.jobs.JobRun;
import dev.zklock.sample.jobs.JobRunRepository;
import dev.zklock.sample.jobs.OrderExpiryJob;
import dev.zklock.sample.load.SampleClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The scheduled expiry job: unpaid orders expire and give their stock back, and the
 * job skips its turns while another instance leads its role, after this instance
 * yielded or was taken out of readiness.
 */
@SampleApplicationTest
class OrderExpiryJobTests {

	@LocalServerPort
	private int port;

	@Autowired
	private LeaderElection election;

	@Autowired
	private AsyncLockManager asyncLocks;

	@Autowired
	private LeadersEndpoint leaders;

	@Autowired
	private JobRunRepository runs;

	private SampleClient client;

	@BeforeEach
	void client() {
		this.client = new SampleClient(SampleClient.httpClient(), URI.create("http://127.0.0.1:" + this.port),
				Duration.ofSeconds(30));
	}

	@Test
	void unpaidOrdersExpireAndGiveTheirStockBack() {
		this.client.setStock("lisbon", "expiring", 5).expect(200);
		long id = this.client.placeOrder("lisbon", "expiring", 2).expect(201).body().get("id").asLong();
		assertThat(quantity("lisbon", "expiring")).isEqualTo(3);
		await().atMost(Duration.ofSeconds(30)).until(() -> "EXPIRED".equals(status(id)));
		assertThat(quantity("lisbon", "expiring")).isEqualTo(5);
	}

	@Test
	void theJobSkipsItsTurnWhileAnotherInstanceLeads() throws Exception {
		assertTheJobMovesAndComesBack(() -> assertThat(this.election.yieldLeadership(OrderExpiryJob.NAME)).isTrue(),
				() -> {
				});
	}

	// what the dashboard's readiness button does
	@Test
	void takenOutOfReadinessTheInstanceHandsTheJobOverUntilItIsBack() throws Exception {
		assertTheJobMovesAndComesBack(() -> switchReadiness("REFUSING_TRAFFIC"),
				() -> switchReadiness("ACCEPTING_TRAFFIC"));
	}

	private void assertTheJobMovesAndComesBack(Runnable stepDown, Runnable comeBack) throws Exception {
		assertThat(this.election.awaitLeadership(OrderExpiryJob.NAME, Duration.ofSeconds(30))).isTrue();
		// another candidate queues up behind this instance and leads once this instance steps down
		CompletableFuture<AsyncLockHandle> other = this.asyncLocks.acquire(
				LockRequest.named(CuratorLeaderElection.LOCK_NAME)
					.keys(OrderExpiryJob.NAME)
					.timeout(Duration.ofSeconds(30))
					.build());
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.leaders.role(OrderExpiryJob.NAME).candidates().size() == 1);
		long id;
		try {
			stepDown.run();
			AsyncLockHandle leading = other.get(30, TimeUnit.SECONDS);
			assertThat(leading.isAcquired()).isTrue();
			try {
				assertThat(this.election.isLeader(OrderExpiryJob.NAME)).isFalse();
				long lastRun = lastRunId();
				id = this.client.placeOrder("lisbon", "mug", 1).expect(201).body().get("id").asLong();
				// several turns of the job pass (every 200 ms) and each one is skipped
				await().during(Duration.ofSeconds(3))
					.atMost(Duration.ofSeconds(10))
					.until(() -> lastRunId() == lastRun && "RESERVED".equals(status(id)));
			}
			finally {
				leading.release().get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			// the context is shared with other test classes
			comeBack.run();
		}
		assertThat(this.election.awaitLeadership(OrderExpiryJob.NAME, Duration.ofSeconds(30))).isTrue();
		await().atMost(Duration.ofSeconds(30)).until(() -> "EXPIRED".equals(status(id)));
	}

	private void switchReadiness(String state) {
		assertThat(this.client.send("PUT", "instance/readiness?state=" + state, null).expect(200).body().asString())
			.isEqualTo(state);
	}

	private long lastRunId() {
		return this.runs.findLatest(1).stream().mapToLong(JobRun::id).findFirst().orElse(0);
	}

	private String status(long id) {
		return this.client.get("orders/" + id).expect(200).body().get("status").asString();
	}

	private int quantity(String warehouse, String sku) {
		return this.client.get("stock/" + warehouse + "/" + sku).expect(200).body().get("quantity").asInt();
	}

}
