package dev.zklock.sample;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.aot.AotDetector;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.util.ClassUtils;

import dev.zklock.sample.load.SampleClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample started in AOT mode ({@code -Dspring.aot.enabled=true}) from the code that
 * {@code spring-boot:process-aot} generated: it places an order (a WRITE lock with a
 * fencing token), reads it (an annotated READ), pays it (a SEMAPHORE with a fallback)
 * and serves {@code /actuator/locks}. Run by the {@code aot-mode} execution in
 * {@code integration-test}, after {@code process-aot}.
 */
@Tag("aot")
class SampleAotModeTests {

	@Test
	void servesOrdersReadsPaymentsAndTheLocksEndpointInAotMode(@TempDir Path directory) {
		assertThat(AotDetector.useGeneratedArtifacts()).as("spring.aot.enabled").isTrue();
		assertThat(ClassUtils.isPresent(SampleApplication.class.getName() + "__ApplicationContextInitializer",
				getClass().getClassLoader()))
			.as("the initializer process-aot generates")
			.isTrue();
		LoopbackOnly.apply();
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.main(SampleApplication.class)
			.run("--server.address=127.0.0.1", "--server.port=0", "--sample.data-dir=" + directory)) {
			URI base = URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
			SampleClient client = new SampleClient(SampleClient.httpClient(), base, Duration.ofSeconds(30));
			SampleClient.Answer placed = client.placeOrder("berlin", "kettle", 1).expect(201);
			assertThat(placed.body().get("status").asString()).isEqualTo("RESERVED");
			long id = placed.body().get("id").asLong();
			assertThat(client.get("orders/" + id).expect(200).body().get("id").asLong()).isEqualTo(id);
			assertThat(client.send("POST", "orders/" + id + "/payment", null).expect(200).body().get("status")
				.asString()).isEqualTo("PAID");
			SampleClient.Answer locks = client.get("actuator/locks").expect(200);
			assertThat(locks.body().has("basePath")).isTrue();
			assertThat(locks.body().get("locks").isArray()).isTrue();
		}
	}

}
