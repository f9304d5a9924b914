package dev.zklock.sample;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.zklock.sample.load.SampleClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample as a developer runs it, with its file database and embedded ZooKeeper,
 * started twice on the same data directory: the ZooKeeper data survives with the
 * database, so the second run's fencing tokens are above the fences the first run
 * stored and its orders are accepted.
 */
class SampleRestartTests {

	@Test
	void theSampleStartsTwiceOnTheSameDirectoriesAndPlacesAnOrderEachTime(@TempDir Path directory) {
		long firstFence = runAndPlaceAnOrder(directory);
		assertThat(directory.resolve("zookeeper")).as("the embedded ZooKeeper's data directory").isDirectory();
		long secondFence = runAndPlaceAnOrder(directory);
		assertThat(firstFence).isPositive();
		assertThat(secondFence).as("the fence the second run stored").isGreaterThan(firstFence);
	}

	private static long runAndPlaceAnOrder(Path directory) {
		LoopbackOnly.apply();
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class).run(
				"--server.address=127.0.0.1", "--server.port=0", "--sample.data-dir=" + directory,
				"--zk-lock.session-timeout=5s")) {
			assertThat(Files.isDirectory(directory.resolve("zookeeper"))).isTrue();
			URI base = URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
			SampleClient client = new SampleClient(SampleClient.httpClient(), base, Duration.ofSeconds(30));
			SampleClient.Answer answer = client.placeOrder("berlin", "mug", 1);
			assertThat(answer.status()).as("%s", answer.body()).isEqualTo(201);
			assertThat(answer.body().get("status").asString()).isEqualTo("RESERVED");
			return context.getBean(JdbcTemplate.class)
				.queryForObject("SELECT fence FROM stock WHERE warehouse = 'berlin' AND sku = 'mug'", Long.class);
		}
	}

}
