package dev.zklock.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.actuate.audit.AuditEventRepository;
import org.springframework.boot.actuate.audit.InMemoryAuditEventRepository;
import org.springframework.boot.actuate.audit.listener.AuditListener;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.autoconfigure.ZkLockClient;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.LockManager;
import dev.zklock.testsupport.JvmProcess;
import dev.zklock.testsupport.OutputLines;
import dev.zklock.testsupport.StoppableZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code DELETE /actuator/locks/{name}/{key}} over real HTTP: a holder in another
 * JVM is revoked from this JVM's endpoint, learns it within 100 ms (median of 20
 * rounds), is interrupted, its next waiter gets the lock with a higher token, and
 * its fenced write is rejected (the control round shows the same write accepted
 * while it holds). Without {@code management.endpoint.locks.access=unrestricted}
 * the DELETE is refused; unknown locks, keys and nodes get 404 bodies; with
 * ZooKeeper down, 503 and the holder keeps its lock.
 */
class LockRevocationWebTests {

	private static final int ROUNDS = 20;

	private static final StoppableZooKeeper server = StoppableZooKeeper.start();

	private final String basePath = "/revoke-" + UUID.randomUUID();

	private final HttpClient http = HttpClient.newHttpClient();

	@AfterAll
	static void stopServer() {
		server.close();
	}

	@Test
	void aHolderInAnotherJvmIsRevokedFromTheEndpoint(@TempDir Path directory) throws Exception {
		String register = "/fenced-" + UUID.randomUUID();
		try (ConfigurableApplicationContext app = start(true)) {
			CuratorFramework client = app.getBean(ZkLockClient.class).getCuratorFramework();
			FencedRegister.create(client, register);
			LockManager lockManager = app.getBean(LockManager.class);
			CuratorLockManager manager = (CuratorLockManager) InstrumentedLockManager.unwrap(lockManager);
			OutputLines output = new OutputLines();
			JvmProcess holder = JvmProcess.builder("revocable holder", RevocableHolderMain.class.getName())
				.directory(directory)
				.arguments(List.of(server.connectString(), this.basePath, register))
				.outputListener(output)
				.build();
			holder.start();
			try {
				output.awaitLine(holder, "READY", Duration.ofSeconds(60));
				// control: while it holds, the holder's fenced write is accepted
				holder.send("CONTROL");
				assertThat(output.awaitLine(holder, "WRITE control", Duration.ofSeconds(30)))
					.isEqualTo("WRITE control ACCEPTED");
				List<Long> latencies = new ArrayList<>();
				List<Long> calls = new ArrayList<>();
				for (int round = 1; round <= ROUNDS; round++) {
					holder.send("HOLD " + round);
					long token = Long.parseLong(output.awaitLine(holder, "HELD " + round + " ", Duration.ofSeconds(30))
						.split(" ")[2]);
					CompletableFuture<long[]> waiter = CompletableFuture.supplyAsync(() -> {
						try (LockHandle handle = lockManager.acquire(LockRequest.named("jobs").keys("k").build())) {
							assertThat(handle.isAcquired()).isTrue();
							boolean accepted = FencedRegister.write(client, register, handle.fencingToken());
							return new long[] { handle.fencingToken(), accepted ? 1 : 0 };
						}
						catch (Exception ex) {
							throw new IllegalStateException(ex);
						}
					});
					await().atMost(Duration.ofSeconds(10)).until(() -> manager.getRegistry().waitingCount() == 1);
					output.awaitLine(holder, "WORKING " + round, Duration.ofSeconds(30));
					long deleteMicros = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
					long callStart = System.nanoTime();
					HttpResponse<String> response = delete("/actuator/locks/jobs/k");
					calls.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - callStart));
					assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
					Map<String, Object> body = json(response);
					assertThat(list(body.get("revoked"))).singleElement()
						.satisfies((revoked) -> assertThat(((Number) revoked.get("fencingToken")).longValue())
							.isEqualTo(token))
						.satisfies((revoked) -> assertThat((String) revoked.get("owner")).contains("holder-"));
					String lost = output.awaitLine(holder, "LOST " + round + " ", Duration.ofSeconds(10));
					assertThat(lost.split(" ")[2]).isEqualTo("REVOKED");
					latencies.add(Long.parseLong(lost.split(" ")[3]) - deleteMicros);
					output.awaitLine(holder, "INTERRUPTED " + round, Duration.ofSeconds(10));
					assertThat(output.awaitLine(holder, "AFTER " + round + " ", Duration.ofSeconds(10)))
						.endsWith("held=false assertHeld=LockLostException");
					assertThat(output.awaitLine(holder, "CLOSED " + round + " ", Duration.ofSeconds(10)))
						.endsWith("quiet");
					long[] granted = waiter.get(30, TimeUnit.SECONDS);
					assertThat(granted[0]).isGreaterThan(token);
					assertThat(granted[1]).as("the new holder's fenced write").isEqualTo(1);
					holder.send("WRITE " + round);
					assertThat(output.awaitLine(holder, "WRITE " + round + " ", Duration.ofSeconds(10)))
						.isEqualTo("WRITE " + round + " REJECTED");
				}
				Collections.sort(latencies);
				Collections.sort(calls);
				long median = latencies.get(ROUNDS / 2) / 1000;
				System.out.printf("REVOKE: holder saw LOST/REVOKED after median %d ms, max %d ms over %d rounds "
						+ "(from the DELETE's start; the DELETE call itself took median %d ms, max %d ms)%n", median,
						latencies.get(ROUNDS - 1) / 1000, ROUNDS, calls.get(ROUNDS / 2), calls.get(ROUNDS - 1));
				assertThat(output.lines()).noneMatch((line) -> line.startsWith("FAILED")
						|| line.startsWith("NOT_INTERRUPTED"));
				assertThat(median).isLessThan(100);
				Counter revocations = app.getBean(MeterRegistry.class).find("zk.lock.revocations")
					.tag("name", "jobs")
					.counter();
				assertThat(revocations).isNotNull();
				assertThat(revocations.count()).isEqualTo(ROUNDS);
				List<AuditEvent> audits = app.getBean(AuditEventRepository.class).find(null, null, "ZK_LOCK_REVOKED");
				assertThat(audits).hasSize(ROUNDS);
				assertThat(audits.get(0).getData()).containsEntry("name", "jobs").containsEntry("key", "k");
				holder.send("EXIT");
				assertThat(holder.awaitExit(Duration.ofSeconds(30))).isZero();
			}
			finally {
				holder.kill();
			}
		}
	}

	@Test
	void withoutUnrestrictedAccessTheDeleteIsRefused() throws Exception {
		try (ConfigurableApplicationContext app = start(false)) {
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<String> holder = holdInThread(app.getBean(LockManager.class), "kept", release);
			try {
				String node = awaitHeldNode(app);
				HttpResponse<String> response = delete("/actuator/locks/jobs/kept");
				System.out.printf("REVOKE without access=unrestricted: HTTP %d%n", response.statusCode());
				assertThat(response.statusCode()).isIn(404, 405);
				HttpResponse<String> keyless = delete("/actuator/locks/jobs");
				assertThat(keyless.statusCode()).isIn(404, 405);
				assertThat(client(app).checkExists().forPath(node)).isNotNull();
				assertThat(heldNode(app)).isEqualTo(node);
				// the endpoint itself is there: reading works
				assertThat(get("/actuator/locks/jobs").statusCode()).isEqualTo(200);
			}
			finally {
				release.countDown();
			}
			assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("released");
		}
	}

	@Test
	void unknownLocksKeysAndNodesGetNotFoundBodies() throws Exception {
		try (ConfigurableApplicationContext app = start(true)) {
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<String> holder = holdInThread(app.getBean(LockManager.class), "kept", release);
			try {
				String node = awaitHeldNode(app);
				assertNotFound(delete("/actuator/locks/nothing/kept"), "LOCK_NOT_FOUND", "No lock named 'nothing'");
				assertNotFound(delete("/actuator/locks/jobs/other"), "KEY_NOT_FOUND", "has no key 'other'");
				assertNotFound(delete("/actuator/locks/jobs/kept?node=" + URLEncoder.encode("lock-0000000999",
						StandardCharsets.UTF_8)), "NODE_NOT_FOUND", "Node 'lock-0000000999' is not a current holder");
				assertNotFound(delete("/actuator/locks/jobs"), "KEY_NOT_FOUND", "has no key");
				assertThat(heldNode(app)).isEqualTo(node);
				// the node named: only that one goes
				String name = node.substring(node.lastIndexOf('/') + 1);
				HttpResponse<String> revoked = delete("/actuator/locks/jobs/kept?node=" + name);
				assertThat(revoked.statusCode()).as(revoked.body()).isEqualTo(200);
				assertThat(list(json(revoked).get("revoked"))).singleElement()
					.satisfies((holderNode) -> assertThat(holderNode.get("node")).isEqualTo(name));
				await().atMost(Duration.ofSeconds(5)).until(() -> heldNode(app) == null);
				// interrupt-on-loss: the revoked holder's wait ends at once
				assertThat(holder).failsWithin(Duration.ofSeconds(5))
					.withThrowableThat()
					.withCauseInstanceOf(InterruptedException.class);
			}
			finally {
				release.countDown();
			}
		}
	}

	@Test
	void withZooKeeperDownTheRevocationIsUnavailableAndRemovesNothing() throws Exception {
		try (ConfigurableApplicationContext app = start(true)) {
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<String> holder = holdInThread(app.getBean(LockManager.class), "kept", release);
			try {
				String node = awaitHeldNode(app);
				Stat before = client(app).checkExists().forPath(node);
				server.stop();
				try {
					await().atMost(Duration.ofSeconds(10))
						.until(() -> !client(app).getZookeeperClient().isConnected());
					HttpResponse<String> response = delete("/actuator/locks/jobs/kept");
					System.out.printf("REVOKE with ZooKeeper down: HTTP %d %s%n", response.statusCode(),
							response.body());
					assertThat(response.statusCode()).isEqualTo(503);
					assertThat(json(response)).containsEntry("problem", "UNAVAILABLE")
						.containsEntry("name", "jobs")
						.containsEntry("key", "kept");
				}
				finally {
					server.restart();
				}
				await().atMost(Duration.ofSeconds(20)).until(() -> client(app).getZookeeperClient().isConnected());
				Stat after = client(app).checkExists().forPath(node);
				assertThat(after).isNotNull();
				assertThat(after.getCzxid()).isEqualTo(before.getCzxid());
				CuratorLockManager manager = (CuratorLockManager) InstrumentedLockManager
					.unwrap(app.getBean(LockManager.class));
				await().atMost(Duration.ofSeconds(10)).until(() -> manager.getRegistry().heldCount() == 1);
			}
			finally {
				release.countDown();
			}
			assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("released");
		}
	}

	private static void assertNotFound(HttpResponse<String> response, String problem, String message) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(404);
		assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).contains("json"));
		Map<String, Object> body = json(response);
		assertThat(body).containsEntry("problem", problem).containsEntry("status", 404);
		assertThat((String) body.get("message")).contains(message);
	}

	private static CompletableFuture<String> holdInThread(LockManager lockManager, String key,
			CountDownLatch release) {
		CompletableFuture<String> result = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try (LockHandle handle = lockManager.acquire(LockRequest.named("jobs").keys(key).build())) {
				assertThat(handle.isAcquired()).isTrue();
				release.await(30, TimeUnit.SECONDS);
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
				return;
			}
			result.complete("released");
		}, "in-jvm-holder");
		thread.start();
		return result;
	}

	private String awaitHeldNode(ConfigurableApplicationContext app) {
		return await().atMost(Duration.ofSeconds(10)).until(() -> heldNode(app), (path) -> path != null);
	}

	private String heldNode(ConfigurableApplicationContext app) throws Exception {
		String path = this.basePath + "/jobs/kept";
		if (client(app).checkExists().forPath(path) == null) {
			return null;
		}
		List<String> children = client(app).getChildren().forPath(path);
		return children.isEmpty() ? null : path + "/" + children.get(0);
	}

	private static CuratorFramework client(ConfigurableApplicationContext app) {
		return app.getBean(ZkLockClient.class).getCuratorFramework();
	}

	private ConfigurableApplicationContext start(boolean unrestricted) {
		List<String> properties = new ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1",
				"management.endpoints.web.exposure.include=locks,metrics", "spring.docker.compose.enabled=false",
				"spring.application.name=revoker", "zk-lock.connect-string=" + server.connectString(),
				"zk-lock.base-path=" + this.basePath, "zk-lock.interrupt-on-loss=true",
				"spring.autoconfigure.exclude=org.springframework.boot.actuate.autoconfigure.audit.AuditAutoConfiguration"));
		if (unrestricted) {
			properties.add("management.endpoint.locks.access=unrestricted");
		}
		ConfigurableApplicationContext app = new SpringApplicationBuilder(RevokingApplication.class)
			.properties(properties.toArray(new String[0]))
			.run();
		this.port = app.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
		return app;
	}

	private int port;

	private HttpResponse<String> delete(String path) throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.DELETE()
			.timeout(Duration.ofSeconds(30))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String path) throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(30))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static Map<String, Object> json(HttpResponse<String> response) {
		return JsonParserFactory.getJsonParser().parseMap(response.body());
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> list(Object value) {
		return (List<Map<String, Object>>) value;
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class RevokingApplication {

		// auditing on; Boot's AuditAutoConfiguration needs Spring Security, which this module does not have
		@Bean
		AuditEventRepository auditEventRepository() {
			return new InMemoryAuditEventRepository();
		}

		@Bean
		AuditListener auditListener(AuditEventRepository auditEventRepository) {
			return new AuditListener(auditEventRepository);
		}

	}

}
