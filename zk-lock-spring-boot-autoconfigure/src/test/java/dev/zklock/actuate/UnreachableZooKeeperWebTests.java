package dev.zklock.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

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
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import dev.zklock.LockException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.autoconfigure.ZkLockClient;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.LockManager;
import dev.zklock.testsupport.StoppableZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A running web application while its ZooKeeper server is stopped: requests
 * through {@code @DistributedLock(timeout = "1s")} end by their deadline instead of
 * piling up behind Curator's retries, a request without a lock answers throughout,
 * {@code Mono} and {@code Flux} methods end by their deadline, and the {@code locks} endpoint and the
 * health indicator answer at once and say why.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=health,locks",
				"management.endpoint.health.show-details=always", "zk-lock.connection-timeout=15s",
				"zk-lock.base-path=/unreachable-web" })
class UnreachableZooKeeperWebTests {

	private static final Logger logger = LoggerFactory.getLogger(UnreachableZooKeeperWebTests.class);

	private static final StoppableZooKeeper server = StoppableZooKeeper.start();

	// the server is this class's own
	private static final String BASE_PATH = "/unreachable-web";

	private static final Duration SLACK = Duration.ofMillis(250);

	private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	@LocalServerPort
	private int port;

	@Autowired
	private Orders orders;

	@Autowired
	private LockManager lockManager;

	@Autowired
	@Qualifier(ZkLockClient.QUALIFIER)
	private CuratorFramework client;

	@DynamicPropertySource
	static void connectString(DynamicPropertyRegistry registry) {
		registry.add("zk-lock.connect-string", server::connectString);
	}

	@AfterAll
	static void closeServer() {
		server.close();
	}

	@Test
	void requestsEndByTheirDeadlineAndTheEndpointsSayWhy() throws Exception {
		assertThat(get("/orders/warm-up").body()).isEqualTo("placed warm-up");
		// a running application: 50 connections open and 50 request threads started
		List<CompletableFuture<HttpResponse<String>>> warmUp = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			warmUp.add(this.http.sendAsync(request("/ping"), HttpResponse.BodyHandlers.ofString()));
		}
		CompletableFuture.allOf(warmUp.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
		for (Mono<String> mono : monos()) {
			assertThat(mono.block(Duration.ofSeconds(10))).isNotEmpty();
		}
		CuratorLockManager manager = (CuratorLockManager) InstrumentedLockManager.unwrap(this.lockManager);
		server.stop();
		await().atMost(Duration.ofSeconds(10)).until(() -> manager.getReachability().isUnreachable());

		AtomicBoolean pileUp = new AtomicBoolean(true);
		CompletableFuture<Integer> pings = pingWhile(pileUp);
		long start = System.nanoTime();
		List<CompletableFuture<HttpResponse<String>>> requests = new ArrayList<>();
		List<Long> answeredAfter = new CopyOnWriteArrayList<>();
		for (int i = 0; i < 50; i++) {
			requests.add(this.http.sendAsync(request("/orders/o-" + i), HttpResponse.BodyHandlers.ofString())
				.whenComplete((response, ex) -> answeredAfter.add((System.nanoTime() - start) / 1_000_000)));
		}
		CompletableFuture.allOf(requests.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
		Duration pileUpTime = Duration.ofNanos(System.nanoTime() - start);
		logger.info("50 requests through a 1 s lock answered after {} ms", answeredAfter.stream().sorted().toList());
		pileUp.set(false);
		assertThat(pileUpTime).as("50 requests through a 1 s lock").isLessThan(Duration.ofSeconds(2));
		for (CompletableFuture<HttpResponse<String>> response : requests) {
			// the fallback got the failure, which says why
			assertThat(response.join().body()).startsWith("not placed: ").contains("unreachable since");
		}
		assertThat(pings.get(10, TimeUnit.SECONDS)).as("answers of the endpoint without a lock").isPositive();
		assertThat(this.orders.placed()).as("orders placed, the warm-up alone").hasValue(1);

		assertMonosEndByTheirDeadline();

		HttpResponse<String> health = timedGet("/actuator/health/zkLock");
		assertThat(health.statusCode()).isEqualTo(503);
		assertThat(health.body()).contains("SUSPENDED").contains("unreachable since");
		HttpResponse<String> locks = timedGet("/actuator/locks");
		assertThat(locks.statusCode()).isEqualTo(200);
		assertThat(locks.body()).contains("unreachable since");
		HttpResponse<String> queues = timedGet("/actuator/locks/orders");
		assertThat(queues.statusCode()).isEqualTo(503);
		assertThat(queues.body()).contains("unreachable since");

		server.restart();
		await().atMost(Duration.ofSeconds(30)).until(() -> !manager.getReachability().isUnreachable());
		await().atMost(Duration.ofSeconds(30)).until(() -> lockNodes(BASE_PATH) == 0);
		assertThat(get("/orders/after").body()).isEqualTo("placed after");
	}

	private void assertMonosEndByTheirDeadline() throws Exception {
		List<Duration> timeouts = List.of(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1),
				Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(1));
		List<Mono<String>> monos = monos();
		List<CompletableFuture<Duration>> calls = new ArrayList<>();
		for (int i = 0; i < monos.size(); i++) {
			calls.add(timed(timeouts.get(i), monos.get(i)));
		}
		CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
		logger.info("Monos with timeouts {} ended after {}", timeouts, calls.stream().map(CompletableFuture::join).toList());
	}

	// timeouts 0, 1s (READ, WRITE, SEMAPHORE, two keys), 5s, and a Flux with 1s
	private List<Mono<String>> monos() {
		return List.of(this.orders.tryOnce("m"), this.orders.read("m"), this.orders.write("m"),
				this.orders.permit("m"), this.orders.several(List.of("a", "b")), this.orders.patient("m"),
				this.orders.stream("f").collectList().map(String::valueOf));
	}

	// Subscribes now; completes with the time taken once the Mono failed, as it must while ZooKeeper is down
	private static CompletableFuture<Duration> timed(Duration timeout, Mono<String> mono) {
		long start = System.nanoTime();
		return mono.toFuture().handle((value, ex) -> {
			Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
			assertThat(value).isNull();
			assertThat(ex).isInstanceOf(LockException.class).hasMessageContaining("unreachable since");
			assertThat(elapsed).isLessThanOrEqualTo(timeout.plus(SLACK));
			return elapsed;
		});
	}

	private CompletableFuture<Integer> pingWhile(AtomicBoolean running) {
		return CompletableFuture.supplyAsync(() -> {
			int answered = 0;
			while (running.get()) {
				HttpResponse<String> pong = timedGet("/ping");
				assertThat(pong.body()).isEqualTo("pong");
				answered++;
			}
			return answered;
		});
	}

	// Every answer here is due within 2 s while ZooKeeper is down
	private HttpResponse<String> timedGet(String path) {
		long start = System.nanoTime();
		HttpResponse<String> response = get(path);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as(path).isLessThan(Duration.ofSeconds(2));
		return response;
	}

	private HttpResponse<String> get(String path) {
		try {
			return this.http.send(request(path), HttpResponse.BodyHandlers.ofString());
		}
		catch (Exception ex) {
			throw new IllegalStateException("GET " + path + " failed", ex);
		}
	}

	private HttpRequest request(String path) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(30))
			.build();
	}

	// creates sent during the outage may run once the server is back, and their nodes go right after
	private int lockNodes(String path) throws Exception {
		try {
			Stat stat = this.client.checkExists().forPath(path);
			int nodes = (stat != null && stat.getEphemeralOwner() != 0) ? 1 : 0;
			for (String child : (stat != null) ? this.client.getChildren().forPath(path) : List.<String>of()) {
				nodes += lockNodes(path + "/" + child);
			}
			return nodes;
		}
		catch (KeeperException.NoNodeException ex) {
			return 0;
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ Orders.class, OrderController.class })
	static class ShopApplication {

	}

	@RestController
	static class OrderController {

		private final Orders orders;

		OrderController(Orders orders) {
			this.orders = orders;
		}

		@GetMapping("/orders/{id}")
		String place(@PathVariable String id) {
			return this.orders.place(id);
		}

		@GetMapping("/ping")
		String ping() {
			return "pong";
		}

	}

	static class Orders {

		private final AtomicInteger placed = new AtomicInteger();

		AtomicInteger placed() {
			return this.placed;
		}

		@DistributedLock(name = "orders", key = "#id", timeout = "1s", fallbackMethod = "notPlaced")
		public String place(String id) {
			this.placed.incrementAndGet();
			return "placed " + id;
		}

		String notPlaced(String id, LockException ex) {
			return "not placed: " + ex.getMessage();
		}

		@DistributedLock(name = "mono", key = "#id", timeout = "0")
		public Mono<String> tryOnce(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "mono", key = "#id", timeout = "1s", mode = LockMode.READ)
		public Mono<String> read(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "mono", key = "#id", timeout = "1s", mode = LockMode.WRITE)
		public Mono<String> write(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "mono", key = "#id", timeout = "1s", mode = LockMode.SEMAPHORE, permits = 2)
		public Mono<String> permit(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "mono", key = "#ids", timeout = "1s")
		public Mono<String> several(List<String> ids) {
			return Mono.just(String.join(",", ids));
		}

		@DistributedLock(name = "mono", key = "#id", timeout = "5s")
		public Mono<String> patient(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "flux", key = "#id", timeout = "1s")
		public Flux<String> stream(String id) {
			return Flux.just(id, id);
		}

	}

}
