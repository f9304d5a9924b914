package dev.zklock.docs;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;

import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.embedded.EmbeddedZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shortest recipe of docs/testing.md, run as written: the embedded server, which the
 * application's tests have in test scope, started for the test's application context.
 */
@SpringBootTest(properties = "zk-lock.embedded.enabled=true")
class EmbeddedServerRecipeTests {

	@Autowired
	LockTemplate locks;

	@Autowired
	EmbeddedZooKeeper server;

	@Test
	void locksOnTheEmbeddedServer() {
		assertThat(this.locks.execute(LockRequest.named("report").timeout(Duration.ofSeconds(5)).build(),
				() -> this.server.getConnectString()))
			.startsWith("127.0.0.1:");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
