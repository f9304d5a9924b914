package dev.zklock.sample;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.sample.inventory.StallHook;
import dev.zklock.sample.load.LoadReport;
import dev.zklock.sample.load.LoadSettings;
import dev.zklock.sample.load.OrderLoad;
import dev.zklock.sample.load.SampleClient;
import dev.zklock.testsupport.ZooKeeperProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two sample instances, each in its own JVM, against a standalone ZooKeeper server in a
 * third JVM and one H2 file database that this test JVM serves ({@code AUTO_SERVER}),
 * so that either instance can be frozen without freezing the database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TwoInstancesTests {

	private static final String STALL_SKU = "stall-sku";

	private static final Pattern TOKEN = Pattern.compile("fencing token (\\d+)");

	private static final Logger logger = LoggerFactory.getLogger(TwoInstancesTests.class);

	private Path directory;

	private ZooKeeperProcess zookeeper;

	private Connection database;

	private SampleInstance first;

	private SampleInstance second;

	@BeforeAll
	void start(@TempDir Path directory) throws Exception {
		this.directory = directory;
		// a small tick time lets the short session below expire soon after a pause
		this.zookeeper = ZooKeeperProcess.builder().tickTime(Duration.ofMillis(500)).forceSync(false).start();
		LoopbackOnly.apply();
		String url = "jdbc:h2:file:" + this.directory.resolve("inventory") + ";AUTO_SERVER=TRUE";
		this.database = DriverManager.getConnection(url, "sa", "");
		List<String> common = List.of("--zk-lock.embedded.enabled=false",
				"--zk-lock.connect-string=" + this.zookeeper.connectString(), "--zk-lock.session-timeout=5s",
				"--spring.datasource.url=" + url, "--sample.stock.lock-timeout=20s");
		this.first = SampleInstance.launch("first", this.directory, concat(common,
				List.of("--sample.testing.stall-sku=" + STALL_SKU, "--sample.testing.stall-for=8s")));
		// one after the other: each runs schema.sql at startup, and H2 can fail one of two concurrent
		// CREATE INDEX IF NOT EXISTS with "object already exists" (seen once, 2026-12-03)
		this.first.awaitReady(Duration.ofSeconds(120));
		this.second = SampleInstance.launch("second", this.directory, common);
		this.second.awaitReady(Duration.ofSeconds(120));
	}

	@AfterAll
	void stop() throws SQLException {
		if (this.first != null) {
			this.first.close();
		}
		if (this.second != null) {
			this.second.close();
		}
		if (this.database != null) {
			this.database.close();
		}
		if (this.zookeeper != null) {
			this.zookeeper.close();
		}
	}

	@Test
	@Timeout(value = 3, unit = TimeUnit.MINUTES)
	void twoHundredConcurrentOrdersOnFiftyUnitsSellExactlyFifty() throws SQLException {
		LoadSettings settings = LoadSettings.defaults(List.of(this.first.baseUri(), this.second.baseUri()))
			.with(200, 50, 200);
		LoadReport report = OrderLoad.run(settings);
		assertThat(report.succeeded()).as(report.summary()).isEqualTo(50);
		assertThat(report.rejected() + report.busy()).as(report.summary()).isEqualTo(150);
		assertThat(report.failed()).as(report.summary()).isZero();
		assertThat(report.finalStock()).as(report.summary()).isZero();
		assertThat(report.noOversell()).as(report.summary()).isTrue();
		assertThat(report.everyOrderAccountedFor()).as(report.summary()).isTrue();
		report.perTarget().forEach((target, counts) -> assertThat(counts.requests()).as(target.toString()).isEqualTo(100));
		// the database itself, read by this JVM and not through the service
		assertThat(stock(settings.sku())).isZero();
		assertThat(count("SELECT COUNT(*) FROM orders WHERE sku = ?", settings.sku())).isEqualTo(200);
		assertThat(count("SELECT COUNT(*) FROM orders WHERE sku = ? AND status = 'RESERVED'", settings.sku()))
			.isEqualTo(50);
		assertThat(count("SELECT COALESCE(SUM(quantity), 0) FROM orders WHERE sku = ? AND status = 'RESERVED'",
				settings.sku()))
			.isEqualTo(50);
	}

	@Test
	@Timeout(value = 3, unit = TimeUnit.MINUTES)
	void aPausedInstanceThatLostItsLockCannotWriteStock() throws Exception {
		SampleClient firstClient = client(this.first);
		SampleClient secondClient = client(this.second);
		secondClient.setStock("berlin", STALL_SKU, 10).expect(200);

		// the first instance takes the stock lock and stalls right before its fenced write
		CompletableFuture<SampleClient.Answer> stalled = CompletableFuture
			.supplyAsync(() -> firstClient.placeOrder("berlin", STALL_SKU, 1));
		String stallLine = this.first.awaitLogLine(StallHook.MARKER, Duration.ofSeconds(30));
		this.first.pause();
		long staleToken = token(stallLine);

		// its session expires, so the second instance gets the lock and sells a unit
		long waitStarted = System.nanoTime();
		SampleClient.Answer fresh = secondClient.placeOrder("berlin", STALL_SKU, 1);
		Duration waited = Duration.ofNanos(System.nanoTime() - waitStarted);
		assertThat(fresh.status()).as("%s", fresh.body()).isEqualTo(201);
		long freshFence = fence(STALL_SKU);
		assertThat(freshFence).isGreaterThan(staleToken);

		// the first instance wakes up still believing it holds the lock: its write is fenced off
		this.first.resume();
		SampleClient.Answer stale = stalled.get(60, TimeUnit.SECONDS);
		assertThat(stale.status()).as("%s", stale.body()).isEqualTo(409);
		assertThat(stale.body().get("status").asString()).isEqualTo("REJECTED");
		assertThat(stale.body().get("reason").asString()).contains("fenced stock write")
			.contains(Long.toString(staleToken));
		assertThat(this.first.findLogLine("with fencing token " + staleToken + " was rejected")).isPresent();

		// stock stays consistent: one unit sold, by the second instance, and its fence stands
		assertThat(stock(STALL_SKU)).isEqualTo(9);
		assertThat(fence(STALL_SKU)).isEqualTo(freshFence);
		assertThat(count("SELECT COUNT(*) FROM orders WHERE sku = ? AND status = 'RESERVED'", STALL_SKU)).isOne();
		assertThat(count("SELECT COUNT(*) FROM orders WHERE sku = ? AND status = 'REJECTED'", STALL_SKU)).isOne();
		assertThat(count("SELECT COUNT(*) FROM orders WHERE sku = ?", STALL_SKU)).isEqualTo(2);

		// the first instance gets a new session and sells again
		await("the first instance to sell again after its pause").atMost(Duration.ofSeconds(60))
			.until(() -> firstClient.placeOrder("berlin", "mug", 1).status() == 201);
		logger.info("Paused instance: stale token {}, fresh fence {}; the second instance waited {} ms for the lock",
				staleToken, freshFence, waited.toMillis());
	}

	private static SampleClient client(SampleInstance instance) {
		return new SampleClient(SampleClient.httpClient(), instance.baseUri(), Duration.ofSeconds(60));
	}

	private static long token(String line) {
		Matcher matcher = TOKEN.matcher(line);
		assertThat(matcher.find()).as(line).isTrue();
		return Long.parseLong(matcher.group(1));
	}

	private int stock(String sku) throws SQLException {
		return (int) count("SELECT quantity FROM stock WHERE warehouse = 'berlin' AND sku = ?", sku);
	}

	private long fence(String sku) throws SQLException {
		return count("SELECT fence FROM stock WHERE warehouse = 'berlin' AND sku = ?", sku);
	}

	private long count(String sql, String sku) throws SQLException {
		try (PreparedStatement statement = this.database.prepareStatement(sql)) {
			statement.setString(1, sku);
			try (ResultSet rs = statement.executeQuery()) {
				assertThat(rs.next()).as(sql + " for " + sku).isTrue();
				return rs.getLong(1);
			}
		}
	}

	private static List<String> concat(List<String> first, List<String> second) {
		return Stream.concat(first.stream(), second.stream()).toList();
	}

}
