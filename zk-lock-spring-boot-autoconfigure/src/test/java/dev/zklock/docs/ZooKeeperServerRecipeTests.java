package dev.zklock.docs;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recipe of docs/testing.md for an application's own tests, run as written: a
 * {@code zk-lock-test} server for the test class, its address given to zk-lock with
 * {@code @DynamicPropertySource}. The nested configuration stands for the application's
 * {@code @SpringBootApplication}, which the page leaves out.
 */
@SpringBootTest
class ZooKeeperServerRecipeTests {

	@RegisterExtension
	static final ClassFixture<InJvmZooKeeper> zookeeper = ClassFixture.of(() -> InJvmZooKeeper.builder().start());

	@DynamicPropertySource
	static void zooKeeper(DynamicPropertyRegistry registry) {
		registry.add("zk-lock.connect-string", () -> zookeeper.get().connectString());
	}

	@Autowired
	LockTemplate locks;

	@Test
	void locksOnTheTestServer() {
		String result = this.locks.execute(
				LockRequest.named("report").keys("2026-12").timeout(Duration.ofSeconds(5)).build(), () -> "done");
		assertThat(result).isEqualTo("done");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
