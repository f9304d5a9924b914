package dev.zklock.autoconfigure;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.ssl.DefaultSslBundleRegistry;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.jks.JksSslStoreBundle;
import org.springframework.boot.ssl.jks.JksSslStoreDetails;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.core.CuratorLockManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code zk-lock.ssl.bundle}: the client connects with a Spring Boot SSL bundle, JKS
 * or PEM, to the same TLS-only ZooKeeper process as {@link ZkLockTlsTests}, which asks
 * for a client certificate. A bundle that does not trust the server fails startup; a
 * missing bundle fails it naming the property; a reloaded bundle is written again.
 */
class ZkLockSslBundleTests {

	@TempDir
	static Path dir;

	private static TestCertificates certificates;

	private static TlsZooKeeperServer server;

	private static Path clientKeyPem;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, ZkLockAutoConfiguration.class));

	@BeforeAll
	static void startServer() throws Exception {
		certificates = TestCertificates.get();
		server = TlsZooKeeperServer.start(certificates, dir);
		clientKeyPem = writePrivateKeyPem(certificates.clientKeyStore(), "client", dir.resolve("client-key.pem"));
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	@Test
	void connectsWithAJksBundleAndTakesALock() {
		this.runner.withPropertyValues(withServer(jksBundle(certificates.trustStore()))).run(this::locksOverTls);
	}

	@Test
	void connectsWithAPemBundleAndTakesALock() {
		this.runner
			.withPropertyValues(withServer("spring.ssl.bundle.pem.zk.keystore.certificate=file:"
					+ certificates.clientCertificateChainPem(),
					"spring.ssl.bundle.pem.zk.keystore.private-key=file:" + clientKeyPem,
					"spring.ssl.bundle.pem.zk.truststore.certificate=file:" + certificates.caCertificatePem()))
			.run(this::locksOverTls);
	}

	@Test
	void aBundleThatDoesNotTrustTheServerFailsStartupNamingTheBundle() {
		ZooKeeperTlsException failure = startAndFail(withServer(jksBundle(certificates.otherTrustStore())));
		assertThat(failure.getProperty()).isEqualTo("zk-lock.ssl.bundle");
		assertThat(failure.getReason()).contains("the truststore of SSL bundle 'zk' does not trust the server's "
				+ "certificate");
		assertThat(failure.getAction()).contains("spring.ssl.bundle.jks.zk.truststore.*")
			.contains("spring.ssl.bundle.pem.zk.truststore.*");
		assertThat(failure.getMessage()).doesNotContain("zk-lock.tls").doesNotContain(certificates.password());
	}

	@Test
	void aBundleWithoutAClientCertificateFailsStartupNamingTheBundle() {
		ZooKeeperTlsException failure = startAndFail(withServer(
				"spring.ssl.bundle.pem.zk.truststore.certificate=file:" + certificates.caCertificatePem()));
		assertThat(failure.getProperty()).isEqualTo("zk-lock.ssl.bundle");
		assertThat(failure.getReason()).contains("the server rejected the client certificate");
		assertThat(failure.getAction()).contains("keystore of SSL bundle 'zk'");
	}

	private ZooKeeperTlsException startAndFail(String[] properties) {
		ZooKeeperTlsException[] failure = new ZooKeeperTlsException[1];
		this.runner.withPropertyValues(properties).withPropertyValues("zk-lock.startup.wait=30s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(causes(context.getStartupFailure())).anySatisfy((cause) -> {
				assertThat(cause).isInstanceOf(ZooKeeperTlsException.class);
				failure[0] = (ZooKeeperTlsException) cause;
			});
		});
		return failure[0];
	}

	@Test
	void aMissingBundleFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("zk-lock.connect-string=" + server.connectString(),
				"zk-lock.ssl.bundle=no-such-bundle")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(InvalidZkLockPropertyException.class)
					.hasMessageContaining("zk-lock.ssl.bundle")
					.hasMessageContaining("no-such-bundle")
					.hasMessageContaining("spring.ssl.bundle.pem.no-such-bundle");
				InvalidZkLockPropertyException failure = (InvalidZkLockPropertyException) rootCause(
						context.getStartupFailure());
				assertThat(failure.getProperty()).isEqualTo("zk-lock.ssl.bundle");
			});
	}

	@Test
	void anEmptyBundleNameFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("zk-lock.connect-string=" + server.connectString(), "zk-lock.ssl.bundle=")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(rootCause(context.getStartupFailure())).isInstanceOf(InvalidZkLockPropertyException.class)
					.hasMessageContaining("'zk-lock.ssl.bundle'")
					.hasMessageContaining("names no SSL bundle");
			});
	}

	@Test
	void aBundleAndTheTlsStoresTogetherFailStartupNamingTheBundle() {
		List<String> properties = new ArrayList<>(List.of(withServer(jksBundle(certificates.trustStore()))));
		properties.add("zk-lock.tls.trust-store=" + certificates.trustStore());
		this.runner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(rootCause(context.getStartupFailure())).isInstanceOf(InvalidZkLockPropertyException.class)
				.hasMessageContaining("'zk-lock.ssl.bundle'")
				.hasMessageContaining("zk-lock.tls.trust-store");
		});
	}

	@Test
	void aReloadedBundleIsWrittenForTheNextConnections() {
		DefaultSslBundleRegistry registry = new DefaultSslBundleRegistry("zk", bundle(certificates.trustStore()));
		this.runner.withBean(DefaultSslBundleRegistry.class, () -> registry)
			.withPropertyValues("zk-lock.connect-string=" + server.connectString(), "zk-lock.ssl.bundle=zk")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ZKClientConfig config = context.getBean(CuratorFramework.class)
					.getZookeeperClient()
					.getZooKeeper()
					.getClientConfig();
				Path trustStore = Path.of(config.getProperty(ZooKeeperTlsClientConfig.TRUST_STORE_LOCATION));
				String password = config.getProperty(ZooKeeperTlsClientConfig.TRUST_STORE_PASSWORD);
				assertThat(trustedSubjects(trustStore, password)).containsExactly("CN=zk-lock test CA");
				registry.updateBundle("zk", bundle(certificates.otherTrustStore()));
				assertThat(trustedSubjects(trustStore, password)).containsExactly("CN=some other CA");
			});
	}

	private static SslBundle bundle(Path trustStore) {
		return SslBundle.of(new JksSslStoreBundle(
				new JksSslStoreDetails("PKCS12", null, "file:" + certificates.clientKeyStore(), certificates.password()),
				new JksSslStoreDetails("PKCS12", null, "file:" + trustStore, certificates.password())));
	}

	private static List<String> trustedSubjects(Path trustStore, String password) throws Exception {
		KeyStore store = KeyStore.getInstance("PKCS12");
		try (InputStream in = Files.newInputStream(trustStore)) {
			store.load(in, password.toCharArray());
		}
		List<String> subjects = new ArrayList<>();
		for (String alias : Collections.list(store.aliases())) {
			subjects.add(((X509Certificate) store.getCertificate(alias)).getSubjectX500Principal().getName());
		}
		return subjects;
	}

	private void locksOverTls(AssertableApplicationContext context) throws Exception {
		assertThat(context).hasNotFailed();
		CuratorFramework client = context.getBean(CuratorFramework.class);
		ZKClientConfig config = client.getZookeeperClient().getZooKeeper().getClientConfig();
		assertThat(config.getBoolean(ZKClientConfig.SECURE_CLIENT)).isTrue();
		assertThat(config.getProperty(ZooKeeperTlsClientConfig.TRUST_STORE_LOCATION)).isNotBlank();
		CuratorLockManager manager = new CuratorLockManager(client, "/locks", Duration.ofSeconds(10));
		try (LockHandle handle = manager.acquire(LockRequest.named("orders").keys("1").build())) {
			assertThat(handle.isAcquired()).isTrue();
			assertThat(handle.fencingToken()).isPositive();
		}
		// the stores written for ZooKeeper are private to the owner and go away with the context
		Path keyStore = Path.of(config.getProperty(ZooKeeperTlsClientConfig.KEY_STORE_LOCATION));
		assertThat(keyStore).isRegularFile();
		assertThat(Files.getPosixFilePermissions(keyStore.getParent()))
			.isEqualTo(PosixFilePermissions.fromString("rwx------"));
		context.close();
		assertThat(keyStore.getParent()).doesNotExist();
	}

	private static String[] jksBundle(Path trustStore) {
		return new String[] {
				"spring.ssl.bundle.jks.zk.keystore.location=file:" + certificates.clientKeyStore(),
				"spring.ssl.bundle.jks.zk.keystore.password=" + certificates.password(),
				"spring.ssl.bundle.jks.zk.keystore.type=PKCS12",
				"spring.ssl.bundle.jks.zk.truststore.location=file:" + trustStore,
				"spring.ssl.bundle.jks.zk.truststore.password=" + certificates.password(),
				"spring.ssl.bundle.jks.zk.truststore.type=PKCS12" };
	}

	private static String[] withServer(String... bundle) {
		List<String> properties = new ArrayList<>(List.of(bundle));
		properties.add("zk-lock.connect-string=" + server.connectString());
		properties.add("zk-lock.ssl.bundle=zk");
		return properties.toArray(String[]::new);
	}

	private static Path writePrivateKeyPem(Path keyStore, String alias, Path pem) throws Exception {
		KeyStore store = KeyStore.getInstance("PKCS12");
		try (InputStream in = Files.newInputStream(keyStore)) {
			store.load(in, certificates.password().toCharArray());
		}
		Key key = store.getKey(alias, certificates.password().toCharArray());
		String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
			.encodeToString(key.getEncoded());
		return Files.writeString(pem, "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n",
				StandardCharsets.US_ASCII);
	}

	private static List<Throwable> causes(Throwable failure) {
		List<Throwable> causes = new ArrayList<>();
		for (Throwable current = failure; current != null; current = current.getCause()) {
			causes.add(current);
		}
		return causes;
	}

	private static Throwable rootCause(Throwable failure) {
		List<Throwable> causes = causes(failure);
		return causes.get(causes.size() - 1);
	}

}
