package dev.zklock.sample;

import java.net.URI;
import java.time.Duration;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.sample.jobs.JobRun;
import dev.zklock.sample.jobs.JobRunRepository;
import dev.zklock.sample.jobs.OrderExpiryJob;
import dev.zklock.sample.load.SampleClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The scheduled expiry job: unpaid orders expire and give their stock back, and the
 * job skips its turn, without waiting, while another holder runs it.
 */
@SampleApplicationTest
class OrderExpiryJobTests {

	@LocalServerPort
	private int port;

	@Autowired
	private LockTemplate locks;

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
	void theJobSkipsItsTurnWhileAnotherHolderRunsIt() {
		long id;
		try (LockHandle other = this.locks
			.tryAcquire(LockRequest.named(OrderExpiryJob.NAME).timeout(Duration.ofSeconds(30)).build())) {
			assertThat(other.isAcquired()).isTrue();
			long lastRun = lastRunId();
			id = this.client.placeOrder("lisbon", "mug", 1).expect(201).body().get("id").asLong();
			// several turns of the job pass (every 200 ms) and each one is skipped
			await().during(Duration.ofSeconds(3))
				.atMost(Duration.ofSeconds(10))
				.until(() -> lastRunId() == lastRun && "RESERVED".equals(status(id)));
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> "EXPIRED".equals(status(id)));
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
