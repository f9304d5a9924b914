package dev.zklock.compatibility;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.autoconfigure.InvalidZkLockPropertyException;
import dev.zklock.LockManager;
import dev.zklock.embedded.EmbeddedZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A user's application with the starter plus {@code zk-lock-spring-boot-embedded} (added
 * with {@code <optional>true</optional>}, see the pom) and
 * {@code zk-lock.embedded.enabled=true} serves locks; the same application without that
 * artifact fails at startup with a message naming it.
 */
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedServerTests {

	private static final String EMBEDDED_ARTIFACT = "dev.zklock:zk-lock-spring-boot-embedded";

	@Test
	void servesLocksWithTheEmbeddedArtifact() {
		try (ConfigurableApplicationContext app = embeddedApp("embedded").run()) {
			EmbeddedZooKeeper server = app.getBean(EmbeddedZooKeeper.class);
			assertThat(app.getBean(CuratorFramework.class).getZookeeperClient().getCurrentConnectionString())
				.isEqualTo(server.getConnectString());
			LockRequest order = LockRequest.named("embedded-orders").keys("42").build();
			LockRequest noWait = LockRequest.named("embedded-orders").keys("42").timeout(Duration.ZERO).build();
			LockManager locks = app.getBean(LockManager.class);
			String result = app.getBean(LockTemplate.class).execute(order, () -> {
				// held in ZooKeeper: another thread can't take it while the callback runs
				return runInOtherThread(() -> {
					try (LockHandle other = locks.acquire(noWait)) {
						return other.isAcquired() ? "taken twice" : "excluded";
					}
				});
			});
			assertThat(result).isEqualTo("excluded");
			try (LockHandle after = locks.acquire(noWait)) {
				assertThat(after.isAcquired()).isTrue();
			}
		}
	}

	@Test
	void failsNamingTheArtifactWithoutIt(CapturedOutput output) {
		ClassLoader withoutArtifact = new FilteredClassLoader("dev.zklock.embedded");
		SpringApplicationBuilder builder = embeddedApp("embedded-missing")
			.resourceLoader(new DefaultResourceLoader(withoutArtifact));
		assertThatException().isThrownBy(builder::run)
			.havingRootCause()
			.isInstanceOf(InvalidZkLockPropertyException.class)
			.withMessageContaining("zk-lock.embedded.enabled")
			.withMessageContaining("Add " + EMBEDDED_ARTIFACT + " to your build with <optional>true</optional>");
		// the failure analysis a user reads
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("comes from " + EMBEDDED_ARTIFACT + ", which is not on the class path");
	}

	private static SpringApplicationBuilder embeddedApp(String name) {
		return NeighbourApps.builder(name, "spring.cloud.zookeeper.enabled=false", "zk-lock.embedded.enabled=true");
	}

	private static String runInOtherThread(Callable<String> task) throws Exception {
		FutureTask<String> future = new FutureTask<>(task);
		Thread thread = new Thread(future, "other-instance");
		thread.start();
		return future.get(30, TimeUnit.SECONDS);
	}

}
