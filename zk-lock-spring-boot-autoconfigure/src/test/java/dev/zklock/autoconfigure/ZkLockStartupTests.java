package dev.zklock.autoconfigure;

import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.zklock.testsupport.FreePorts;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for waiting on the first connection at startup: fail fast, or start and keep
 * retrying.
 */
@ExtendWith(OutputCaptureExtension.class)
class ZkLockStartupTests {

	private static final Logger logger = LoggerFactory.getLogger(ZkLockStartupTests.class);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class));

	@Test
	void failsFastWhenNothingListens() {
		int port = FreePorts.next();
		long start = System.nanoTime();
		this.runner.withPropertyValues("zk-lock.connect-string=127.0.0.1:" + port, "zk-lock.startup.wait=1s")
			.run((context) -> {
				Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
				logger.info("fail-fast with startup.wait=1s took {} ms", elapsed.toMillis());
				assertThat(elapsed).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(4));
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(ZooKeeperNotConnectedException.class);
				FailureAnalysis analysis = new ZooKeeperNotConnectedFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).isEqualTo("zk-lock could not connect to ZooKeeper at "
						+ "'127.0.0.1:" + port + "' within 1s (zk-lock.startup.wait).");
				assertThat(analysis.getAction())
					.contains("a ZooKeeper server is running and reachable at 127.0.0.1:" + port)
					.contains("'zk-lock.connect-string'")
					.contains("set 'zk-lock.tls.enabled=true'")
					.contains("'zk-lock.startup.fail-fast=false'")
					.doesNotContain("zk-lock.auth");
			});
		// the failed client was closed: its connection thread for that port is gone
		await().atMost(Duration.ofSeconds(10)).until(() -> !hasSendThreadFor(port));
	}

	@Test
	void failFastReportMentionsTlsAndAuthWhenConfigured() {
		// a usable trust store: the TLS probe reports an unusable one instead
		TestCertificates certificates = TestCertificates.get();
		int port = FreePorts.next();
		this.runner
			.withPropertyValues("zk-lock.connect-string=127.0.0.1:" + port, "zk-lock.startup.wait=200ms",
					"zk-lock.tls.enabled=true", "zk-lock.tls.trust-store=" + certificates.trustStore(),
					"zk-lock.tls.trust-store-password=" + certificates.password(),
					"zk-lock.auth.scheme=digest", "zk-lock.auth.credentials=carol:pa55word")
			.run((context) -> {
				FailureAnalysis analysis = new ZooKeeperNotConnectedFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("127.0.0.1:" + port).contains("within 200ms");
				assertThat(analysis.getAction()).contains("secure client port")
					.contains("'zk-lock.tls.trust-store' trusts the server certificate")
					.contains("scheme 'digest'")
					.doesNotContain("pa55word");
			});
	}

	@Test
	void startsAnywayAndConnectsOnceTheServerIsUp(CapturedOutput output) throws Exception {
		int port = FreePorts.next();
		this.runner
			.withPropertyValues("zk-lock.connect-string=127.0.0.1:" + port, "zk-lock.startup.wait=500ms",
					"zk-lock.startup.fail-fast=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				CuratorFramework client = context.getBean(CuratorFramework.class);
				assertThat(client.getZookeeperClient().isConnected()).isFalse();
				// the client keeps trying that port in the background
				await().atMost(Duration.ofSeconds(10)).until(() -> hasSendThreadFor(port));
				assertThat(output).contains("not connected to ZooKeeper at 127.0.0.1:" + port + " within 500ms");
				try (InJvmZooKeeper server = InJvmZooKeeper.builder().port(port).start()) {
					long start = System.nanoTime();
					await().atMost(Duration.ofSeconds(30)).until(() -> client.getZookeeperClient().isConnected());
					logger.info("client connected {} ms after the server started",
							Duration.ofNanos(System.nanoTime() - start).toMillis());
					assertThat(client.checkExists().forPath("/zookeeper")).isNotNull();
					await().atMost(Duration.ofSeconds(10))
						.until(() -> output.toString().contains("connected to ZooKeeper at 127.0.0.1:" + port + " ("));
				}
			});
	}

	private static boolean hasSendThreadFor(int port) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.anyMatch((thread) -> thread.isAlive() && thread.getName().contains("SendThread(127.0.0.1:" + port + ")"));
	}

}
