package dev.zklock.actuate;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.autoconfigure.ZkLockClient;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.LockManager;
import dev.zklock.LockState;
import dev.zklock.core.OtherInstance;
import dev.zklock.testsupport.StoppableZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code /actuator/locks} and {@code /actuator/health/zkLock} over real HTTP in a
 * running application, while its threads and another instance hold and wait.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=health,locks,metrics",
				"management.endpoint.health.show-details=always", "spring.application.name=inventory" })
class LocksEndpointWebTests {

	private static final Logger logger = LoggerFactory.getLogger(LocksEndpointWebTests.class);

	private static final StoppableZooKeeper server = StoppableZooKeeper.start();

	private static final String BASE_PATH = "/web-" + UUID.randomUUID();

	@LocalServerPort
	private int port;

	@Autowired
	private LockTemplate lockTemplate;

	@Autowired
	private LockManager lockManager;

	@Autowired
	@Qualifier(ZkLockClient.QUALIFIER)
	private CuratorFramework client;

	@Autowired
	private Stock stock;

	@Autowired
	private AsyncLockManager asyncLockManager;

	@DynamicPropertySource
	static void zooKeeper(DynamicPropertyRegistry registry) {
		registry.add("zk-lock.connect-string", server::connectString);
		registry.add("zk-lock.base-path", () -> BASE_PATH);
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	@Test
	void showsHoldersWaitersAndTheQueueWithOwners() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch held = new CountDownLatch(1);
		CompletableFuture<String> holder = inThread("holder", () -> this.lockTemplate
			.execute(LockRequest.named("orders").keys("42").build(), () -> {
				held.countDown();
				release.await(30, TimeUnit.SECONDS);
				return "held";
			}));
		assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<String> waiter = inThread("waiter",
				() -> this.lockTemplate.execute(LockRequest.named("orders").keys("42").build(), () -> "waited"));
		CuratorLockManager manager = (CuratorLockManager) InstrumentedLockManager.unwrap(this.lockManager);
		await().atMost(Duration.ofSeconds(10)).until(() -> manager.getRegistry().waitingCount() == 1);
		try (OtherInstance other = new OtherInstance(server, BASE_PATH)) {
			CompletableFuture<Boolean> otherWaiter = inThread("other-waiter", () -> {
				try (var handle = other.manager().acquire(LockRequest.named("orders").keys("42").build())) {
					return handle.isAcquired();
				}
			});
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.client.getChildren().forPath(BASE_PATH + "/orders/42").size() == 3);

			Map<String, Object> locks = getJson("/actuator/locks", "locks.json");
			assertThat(locks).containsEntry("basePath", BASE_PATH).containsEntry("held", 1).containsEntry("waiting", 1);
			List<Map<String, Object>> entries = list(locks.get("locks"));
			assertThat(entries).hasSize(2);
			assertThat(entries.get(0)).containsEntry("name", "orders")
				.containsEntry("key", "42")
				.containsEntry("path", BASE_PATH + "/orders/42")
				.containsEntry("mode", "MUTEX")
				.containsEntry("thread", "holder")
				.containsEntry("state", "HELD")
				.containsKey("since");
			assertThat(entries.get(1)).containsEntry("thread", "waiter").containsEntry("state", "WAITING");

			Map<String, Object> queues = getJson("/actuator/locks/orders", "locks-orders.json");
			assertThat(queues).containsEntry("name", "orders")
				.containsEntry("path", BASE_PATH + "/orders")
				.containsEntry("truncated", false);
			List<Map<String, Object>> keys = list(queues.get("keys"));
			assertThat(keys).singleElement().satisfies((key) -> assertThat(key).containsEntry("key", "42"));
			List<Map<String, Object>> participants = list(keys.get(0).get("participants"));
			assertThat(participants).extracting((participant) -> participant.get("state"))
				.containsExactly("HELD", "WAITING", "WAITING");
			assertThat(participants).extracting((participant) -> ((Number) participant.get("sequence")).longValue())
				.isSorted();
			assertThat(participants).extracting((participant) -> (String) participant.get("owner"))
				.satisfiesExactly((owner) -> assertThat(owner).contains("inventory").contains("holder"),
						(owner) -> assertThat(owner).contains("inventory").contains("waiter"),
						(owner) -> assertThat(owner).contains("other-waiter"));
			String ourSession = "0x" + Long.toHexString(this.client.getZookeeperClient().getZooKeeper().getSessionId());
			String otherSession = "0x"
					+ Long.toHexString(other.client().getZookeeperClient().getZooKeeper().getSessionId());
			assertThat(participants).extracting((participant) -> participant.get("sessionId"))
				.containsExactly(ourSession, ourSession, otherSession);
			assertThat(participants.get(0).get("fencingToken")).isNotNull()
				.isEqualTo(entries.get(0).get("fencingToken"));
			assertThat(participants.get(1).get("fencingToken")).isNull();

			Map<String, Object> health = getJson("/actuator/health/zkLock", "health-zklock.json");
			assertThat(health).containsEntry("status", "UP");
			assertThat(map(health.get("details"))).containsEntry("connectionState", "CONNECTED")
				.containsEntry("sessionId", ourSession)
				.containsEntry("locksHeld", 1)
				.containsEntry("locksWaiting", 1);

			release.countDown();
			assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("held");
			assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo("waited");
			assertThat(otherWaiter.get(10, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			release.countDown();
		}
		getJson("/actuator/metrics/zk.lock.acquire", "metrics-zk.lock.acquire.json");
		assertThat(getJson("/actuator/metrics/zk.lock.execution?tag=zk.lock.name:orders", null))
			.containsEntry("name", "zk.lock.execution");
		assertThat(list(getJson("/actuator/locks", null).get("locks"))).isEmpty();
	}

	@Test
	void showsAsyncHoldsAndWaitersWhileAFutureIsPending() throws Exception {
		CompletableFuture<String> gate = new CompletableFuture<>();
		CompletableFuture<String> holder = this.stock.reserve("7", gate);
		assertThat(this.stock.entered().await(10, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<String> waiter = this.stock.reserve("7", CompletableFuture.completedFuture("second"));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.asyncLockManager.count(LockState.WAITING) == 1);
		try {
			Map<String, Object> locks = getJson("/actuator/locks", "locks-async.json");
			assertThat(locks).containsEntry("basePath", BASE_PATH).containsEntry("held", 1).containsEntry("waiting", 1);
			List<Map<String, Object>> entries = list(locks.get("locks"));
			assertThat(entries).hasSize(2);
			assertThat(entries.get(0)).containsEntry("name", "stock")
				.containsEntry("key", "7")
				.containsEntry("path", BASE_PATH + "/stock/7")
				.containsEntry("mode", "MUTEX")
				.containsEntry("thread", "async")
				.containsEntry("state", "HELD");
			assertThat(entries.get(0).get("fencingToken")).isNotNull();
			assertThat(entries.get(1)).containsEntry("name", "stock")
				.containsEntry("key", "7")
				.containsEntry("thread", "async")
				.containsEntry("state", "WAITING");
			assertThat(entries.get(1).get("fencingToken")).isNull();
			Map<String, Object> health = getJson("/actuator/health/zkLock", "health-zklock-async.json");
			assertThat(map(health.get("details"))).containsEntry("locksHeld", 1)
				.containsEntry("locksInDoubt", 0)
				.containsEntry("locksWaiting", 1);
		}
		finally {
			gate.complete("first");
		}
		assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("first");
		assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo("second");
		await().atMost(Duration.ofSeconds(10)).until(() -> list(getJson("/actuator/locks", null).get("locks")).isEmpty());
		assertThat(map(getJson("/actuator/health/zkLock", null).get("details"))).containsEntry("locksHeld", 0)
			.containsEntry("locksWaiting", 0);
	}

	@ParameterizedTest
	@ValueSource(strings = { "..", "%2E%2E", "%2e%2e", ".", "%2F", "%2Fzookeeper", "zookeeper", "a/b", "..%2F..",
			"%2E%2E%2F%2E%2E%2Fzookeeper", "orders/..", "%00", "missing" })
	void readsNoNameOutsideTheBasePath(String name) throws Exception {
		HttpResponse<String> response = get("/actuator/locks/" + name);
		logger.info("GET /actuator/locks/{} -> {}", name, response.statusCode());
		assertThat(response.statusCode()).as("GET /actuator/locks/%s: %s", name, response.body()).isIn(400, 404);
	}

	@Test
	void healthCanBeReadOnItsOwn() throws Exception {
		Map<String, Object> health = getJson("/actuator/health/zkLock", null);
		assertThat(health).containsEntry("status", "UP");
		assertThat(map(health.get("details"))).containsEntry("connectString", server.connectString());
	}

	private Map<String, Object> getJson(String path, String sample) throws IOException, InterruptedException {
		return ActuatorHttp.getJson(this.port, path, sample);
	}

	private HttpResponse<String> get(String path) throws IOException, InterruptedException {
		return ActuatorHttp.get(this.port, path);
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> list(Object value) {
		return (List<Map<String, Object>>) value;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> map(Object value) {
		return (Map<String, Object>) value;
	}

	private static <T> CompletableFuture<T> inThread(String name, Callable<T> work) {
		CompletableFuture<T> result = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				result.complete(work.call());
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		}, name);
		thread.start();
		return result;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Stock.class)
	static class InventoryApplication {

	}

	static class Stock {

		private final CountDownLatch entered = new CountDownLatch(1);

		public CountDownLatch entered() {
			return this.entered;
		}

		@DistributedLock(name = "stock", key = "#item")
		public CompletableFuture<String> reserve(String item, CompletableFuture<String> gate) {
			this.entered.countDown();
			return gate;
		}

	}

}
