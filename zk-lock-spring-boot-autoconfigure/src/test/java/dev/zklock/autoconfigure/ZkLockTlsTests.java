package dev.zklock.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * TLS against a real ZooKeeper server whose only client port is a secure one: the
 * client connects and locks with the right stores, and startup fails within seconds,
 * naming the property to fix, when TLS is misconfigured. Every failing case sets
 * {@code zk-lock.startup.wait=30s} to show that it does not wait for it.
 */
@ExtendWith(OutputCaptureExtension.class)
class ZkLockTlsTests {

	private static final Logger logger = LoggerFactory.getLogger(ZkLockTlsTests.class);

	/**
	 * A third of the 30s startup wait, below the 15s connection timeout and the 40s
	 * session timeout, with room for a busy machine.
	 */
	private static final Duration FAST = Duration.ofSeconds(10);

	@TempDir
	static Path dir;

	private static TestCertificates certificates;

	private static TlsZooKeeperServer server;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class));

	@BeforeAll
	static void startServer() throws Exception {
		long start = System.nanoTime();
		certificates = TestCertificates.get();
		logger.info("key material made with keytool in {} ms", millisSince(start));
		start = System.nanoTime();
		server = TlsZooKeeperServer.start(certificates, dir);
		logger.info("TLS-only ZooKeeper process listening after {} ms", millisSince(start));
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	@Test
	void connectsOverTlsAndTakesALock() {
		long start = System.nanoTime();
		this.runner.withPropertyValues(tls(certificates.trustStore(), true)).run((context) -> {
			assertThat(context).hasNotFailed();
			logger.info("context with a TLS connection started in {} ms", millisSince(start));
			CuratorFramework client = context.getBean(CuratorFramework.class);
			ZKClientConfig config = client.getZookeeperClient().getZooKeeper().getClientConfig();
			assertThat(config.getBoolean(ZKClientConfig.SECURE_CLIENT)).isTrue();
			CuratorLockManager manager = new CuratorLockManager(client, "/locks", Duration.ofSeconds(10));
			try (LockHandle handle = manager.acquire(LockRequest.named("orders").keys("1").build())) {
				assertThat(handle.isAcquired()).isTrue();
				assertThat(client.getChildren().forPath(manager.pathFor("orders", "1"))).hasSize(1);
			}
		});
	}

	@Test
	void failsFastWhenTheTrustStoreTrustsAnotherCa() {
		ZooKeeperTlsException failure = startAndFail(tls(certificates.otherTrustStore(), true));
		assertThat(failure.getProperty()).isEqualTo("zk-lock.tls.trust-store");
		FailureAnalysis analysis = analyze(failure);
		assertThat(analysis.getDescription()).startsWith("zk-lock could not connect to ZooKeeper at '"
				+ server.connectString() + "': the TLS handshake with " + server.connectString() + " failed: "
				+ "'zk-lock.tls.trust-store' does not trust the server's certificate (");
		assertThat(analysis.getAction()).contains("Set 'zk-lock.tls.trust-store' to a trust store holding the "
				+ "certificate of the CA that signed the server's certificate");
		// the failed client was closed: it no longer retries
		await().atMost(Duration.ofSeconds(10)).until(() -> !hasSendThreadFor(server.port()));
	}

	@Test
	void failsFastWithoutTheClientCertificateTheServerAsksFor() {
		ZooKeeperTlsException failure = startAndFail(tls(certificates.trustStore(), false));
		assertThat(failure.getProperty()).isEqualTo("zk-lock.tls.key-store");
		FailureAnalysis analysis = analyze(failure);
		assertThat(analysis.getDescription()).contains("the TLS handshake with " + server.connectString()
				+ " failed: the server rejected the client certificate");
		assertThat(analysis.getAction()).startsWith("Set 'zk-lock.tls.key-store' (with 'zk-lock.tls.key-store-password')");
	}

	@Test
	void failsFastWhenTlsIsOffAgainstATlsOnlyPort() {
		ZooKeeperTlsException failure = startAndFail(
				new String[] { "zk-lock.connect-string=" + server.connectString() });
		assertThat(failure.getProperty()).isEqualTo("zk-lock.tls.enabled");
		FailureAnalysis analysis = analyze(failure);
		assertThat(analysis.getDescription()).isEqualTo("zk-lock could not connect to ZooKeeper at '"
				+ server.connectString() + "': the server at " + server.connectString() + " expects a TLS handshake "
				+ "(it answered a TLS hello with its certificate), but 'zk-lock.tls.enabled' is false.");
		assertThat(analysis.getAction()).contains("Set 'zk-lock.tls.enabled=true' and 'zk-lock.tls.trust-store'");
	}

	@Test
	void failsFastWhenTlsIsOnAgainstAPlainPort() throws Exception {
		try (InJvmZooKeeper plain = InJvmZooKeeper.builder().start()) {
			List<String> properties = new ArrayList<>(List.of(tls(certificates.trustStore(), true)));
			properties.add("zk-lock.connect-string=" + plain.connectString());
			ZooKeeperTlsException failure = startAndFail(properties.toArray(String[]::new));
			assertThat(failure.getProperty()).isEqualTo("zk-lock.connect-string");
			FailureAnalysis analysis = analyze(failure);
			assertThat(analysis.getDescription()).contains("the TLS handshake with "
					+ plain.connectString() + " failed: the server closed the connection without "
					+ "answering, as a plain client port does");
			assertThat(analysis.getAction()).contains("secure client port (secureClientPort)");
		}
	}

	@Test
	void failsFastOnAWrongTrustStorePassword() {
		List<String> properties = new ArrayList<>(List.of(tls(certificates.trustStore(), true)));
		properties.add("zk-lock.tls.trust-store-password=not-the-password");
		ZooKeeperTlsException failure = startAndFail(properties.toArray(String[]::new));
		assertThat(failure.getProperty()).isEqualTo("zk-lock.tls.trust-store-password");
		assertThat(analyze(failure).getDescription())
			.contains("TLS cannot start: the trust store could not be loaded");
	}

	@Test
	void failsFastOnAWrongKeyStorePassword() {
		List<String> properties = new ArrayList<>(List.of(tls(certificates.trustStore(), true)));
		properties.add("zk-lock.tls.key-store-password=not-the-password");
		ZooKeeperTlsException failure = startAndFail(properties.toArray(String[]::new));
		assertThat(failure.getProperty()).isEqualTo("zk-lock.tls.key-store-password");
		assertThat(analyze(failure).getDescription()).contains("TLS cannot start: the key store could not be loaded");
	}

	@Test
	void probesTheTlsSettingsACustomizerMade() {
		ZkLockProperties.Tls tls = new ZkLockProperties.Tls();
		tls.setTrustStore(certificates.otherTrustStore().toString());
		tls.setTrustStorePassword(certificates.password());
		tls.setKeyStore(certificates.clientKeyStore().toString());
		tls.setKeyStorePassword(certificates.password());
		this.runner
			.withBean(CuratorFrameworkBuilderCustomizer.class,
					() -> (builder) -> builder.zkClientConfig(ZooKeeperTlsClientConfig.create(tls)))
			.withPropertyValues("zk-lock.connect-string=" + server.connectString(), "zk-lock.startup.wait=30s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(tlsCause(context.getStartupFailure())).isInstanceOf(ZooKeeperTlsException.class)
					.hasMessageContaining("'zk-lock.tls.trust-store' does not trust the server's certificate");
			});
	}

	@Test
	void failsAtOnceWhenTlsIsOnWithoutATrustStore() {
		long start = System.nanoTime();
		this.runner.withPropertyValues("zk-lock.connect-string=" + server.connectString(), "zk-lock.startup.wait=30s",
				"zk-lock.tls.enabled=true")
			.run((context) -> {
				assertThat(context).hasFailed();
				logger.info("TLS on without a trust store failed after {} ms", millisSince(start));
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(InvalidZkLockPropertyException.class)
					.hasMessageContaining("'zk-lock.tls.trust-store'");
			});
		assertThat(Duration.ofMillis(millisSince(start))).isLessThan(FAST);
	}

	@Test
	void withoutFailFastATlsProblemIsLoggedAndStartupGoesOn(CapturedOutput output) {
		long start = System.nanoTime();
		this.runner.withPropertyValues(tls(certificates.otherTrustStore(), true))
			.withPropertyValues("zk-lock.startup.fail-fast=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Duration elapsed = Duration.ofMillis(millisSince(start));
				logger.info("TLS problem without fail-fast: started after {} ms", elapsed.toMillis());
				assertThat(elapsed).isLessThan(FAST);
				assertThat(context.getBean(CuratorFramework.class).getZookeeperClient().isConnected()).isFalse();
			});
		assertThat(output).contains("zk-lock: cannot connect to ZooKeeper at " + server.connectString()
				+ ": the TLS handshake with " + server.connectString() + " failed: 'zk-lock.tls.trust-store' does "
				+ "not trust the server's certificate")
			.contains("Starting anyway because zk-lock.startup.fail-fast=false")
			.doesNotContain(certificates.password());
	}

	private ZooKeeperTlsException startAndFail(String[] properties) {
		long start = System.nanoTime();
		AssertableApplicationContext[] failed = new AssertableApplicationContext[1];
		this.runner.withPropertyValues(properties).withPropertyValues("zk-lock.startup.wait=30s").run((context) -> {
			assertThat(context).hasFailed();
			failed[0] = context;
		});
		Duration elapsed = Duration.ofMillis(millisSince(start));
		Throwable failure = failed[0].getStartupFailure();
		Throwable cause = tlsCause(failure);
		logger.info("startup failed after {} ms: {}", elapsed.toMillis(), cause.getMessage());
		assertThat(elapsed).isLessThan(FAST);
		assertThat(cause).isInstanceOf(ZooKeeperTlsException.class);
		ZooKeeperTlsException tlsFailure = (ZooKeeperTlsException) cause;
		FailureAnalysis analysis = analyze(failure);
		assertThat(analysis.getDescription() + analysis.getAction()).contains("'" + tlsFailure.getProperty())
			.doesNotContain(certificates.password());
		return tlsFailure;
	}

	private static String[] tls(Path trustStore, boolean withKeyStore) {
		List<String> properties = new ArrayList<>(List.of("zk-lock.connect-string=" + server.connectString(),
				"zk-lock.tls.enabled=true", "zk-lock.tls.trust-store=" + trustStore,
				"zk-lock.tls.trust-store-password=" + certificates.password()));
		if (withKeyStore) {
			properties.add("zk-lock.tls.key-store=" + certificates.clientKeyStore());
			properties.add("zk-lock.tls.key-store-password=" + certificates.password());
		}
		return properties.toArray(String[]::new);
	}

	private static FailureAnalysis analyze(Throwable failure) {
		return new ZooKeeperTlsFailureAnalyzer().analyze(failure);
	}

	private static Throwable tlsCause(Throwable failure) {
		Throwable current = failure;
		while (current.getCause() != null && !(current instanceof ZooKeeperTlsException)) {
			current = current.getCause();
		}
		return current;
	}

	private static long millisSince(long start) {
		return Duration.ofNanos(System.nanoTime() - start).toMillis();
	}

	private static boolean hasSendThreadFor(int port) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.anyMatch((thread) -> thread.isAlive() && thread.getName().contains("SendThread(127.0.0.1:" + port + ")"));
	}

}
