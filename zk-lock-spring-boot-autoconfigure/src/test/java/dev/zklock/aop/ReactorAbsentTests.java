package dev.zklock.aop;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.testsupport.InJvmZooKeeper;
import dev.zklock.testsupport.JvmProcess;
import dev.zklock.testsupport.OutputLines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Reactor and Kotlin are optional: a Spring Boot application whose JVM has neither
 * reactor-core nor reactive-streams nor any Kotlin jar on its class path
 * ({@link ReactorFreeApplication}) starts, and its
 * {@code CompletableFuture} methods are locked until their futures complete, against a
 * real ZooKeeper server. The application checks the absence of Reactor and Kotlin itself, so a
 * class path that still held it would fail the test rather than pass it.
 */
class ReactorAbsentTests {

	private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(120);

	@TempDir
	Path directory;

	@Test
	void futureMethodsAreLockedInAJvmWithoutReactor() throws Exception {
		try (InJvmZooKeeper zookeeper = InJvmZooKeeper.builder()
			.containerCheckInterval(Duration.ofMillis(100))
			.start()) {
			String basePath = "/reactor-free/" + UUID.randomUUID();
			OutputLines output = new OutputLines();
			JvmProcess application = JvmProcess.builder("Reactor-free application", ReactorFreeApplication.class.getName())
				.directory(this.directory)
				.classPathWithout("reactor-core", "reactive-streams", "kotlin")
				.arguments(List.of("--zk-lock.connect-string=" + zookeeper.connectString(),
						"--zk-lock.base-path=" + basePath))
				.jvmOptions(List.of("-Xmx160m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData"))
				.outputListener(output)
				.build();
			long started = System.nanoTime();
			application.start();
			int status = application.awaitExit(CHILD_TIMEOUT);
			long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
			String result = output.awaitLine(application, "RESULT ", Duration.ofSeconds(10));
			System.out.println(result + " (child JVM ran " + elapsedMs + " ms)");
			assertThat(status).as(application::diagnostics).isZero();
			assertThat(result).as(application::diagnostics)
				.startsWith("RESULT ok maxActive=1 controlMaxActive=2 monoMethod=NoClassDefFoundError ");
			try (CuratorFramework client = connect(zookeeper)) {
				// no lock node is left, and the server sweeps the emptied containers above them
				await().atMost(Duration.ofSeconds(10)).until(() -> TestZooKeeper.allNodes(client, basePath) == 0);
			}
		}
	}

	private static CuratorFramework connect(InJvmZooKeeper zookeeper) throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.newClient(zookeeper.connectString(), new RetryOneTime(100));
		client.start();
		if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
			client.close();
			throw new IllegalStateException("Could not connect to " + zookeeper);
		}
		return client;
	}

}
