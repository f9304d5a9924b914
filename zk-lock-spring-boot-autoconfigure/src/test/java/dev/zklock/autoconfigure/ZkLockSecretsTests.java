package dev.zklock.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.CertPathBuilderException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.autoconfigure.context.properties.ConfigurationPropertiesReportEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.env.EnvironmentEndpointAutoConfiguration;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.env.EnvironmentEndpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.core.CuratorLockManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code zk-lock.auth.credentials} and the TLS passwords stay out of the logs (with
 * ZooKeeper, Curator and zk-lock at TRACE, through startup, locking, failed startups
 * and shutdown), out of {@code toString()} of zk-lock's beans, and out of Actuator's
 * {@code env} and {@code configprops} endpoints even when those show values.
 */
@ExtendWith(OutputCaptureExtension.class)
class ZkLockSecretsTests {

	private static final String PASSWORD = "pw-" + UUID.randomUUID();

	private static final String CREDENTIALS = "orders-app:" + PASSWORD;

	private static final List<String> TRACED_LOGGERS = List.of("org.apache.zookeeper", "org.apache.curator",
			"dev.zklock");

	@TempDir
	static Path dir;

	private static TestCertificates certificates;

	private static TlsZooKeeperServer server;

	@BeforeAll
	static void startServer() throws Exception {
		certificates = TestCertificates.get();
		server = TlsZooKeeperServer.start(certificates, dir);
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	@AfterEach
	void restoreLogLevels() {
		LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());
		logging.setLogLevel("org.apache.zookeeper", LogLevel.WARN);
		logging.setLogLevel("org.apache.curator", LogLevel.WARN);
		logging.setLogLevel("dev.zklock", null);
	}

	@Test
	void secretsNeverReachTheLogs(CapturedOutput output) {
		try (ConfigurableApplicationContext context = run(secureProperties())) {
			CuratorFramework client = context.getBean(CuratorFramework.class);
			CuratorLockManager manager = new CuratorLockManager(client, "/locks", Duration.ofSeconds(10));
			try (LockHandle handle = manager.acquire(LockRequest.named("orders").keys("7").build())) {
				assertThat(handle.isAcquired()).isTrue();
			}
		}
		Map<String, String> untrusted = secureProperties();
		untrusted.put("zk-lock.tls.trust-store", certificates.otherTrustStore().toString());
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> run(untrusted))
			.havingRootCause()
			.isInstanceOf(CertPathBuilderException.class);
		Map<String, String> badCredentials = secureProperties();
		badCredentials.put("zk-lock.auth.credentials", PASSWORD);
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> run(badCredentials))
			.havingRootCause()
			.isInstanceOf(InvalidZkLockPropertyException.class);
		// everything above was logged, at TRACE for ZooKeeper, Curator and zk-lock
		assertThat(output).contains("zk-lock: connected to ZooKeeper at " + server.connectString())
			.containsPattern("DEBUG .*zookeeper\\.ClientCnxn ")
			.containsPattern("DEBUG .*core\\.Acquisition .*Acquired lock")
			.containsPattern("TRACE .*zookeeper\\.ClientCnxn .*SendThread exited loop")
			.contains("APPLICATION FAILED TO START")
			.contains("does not trust the server's certificate")
			.contains("Invalid value '(hidden)' for property 'zk-lock.auth.credentials'");
		assertNoSecrets(output.toString());
	}

	@Test
	void secretsNeverReachToString() {
		List<String> properties = secureProperties().entrySet()
			.stream()
			.map((entry) -> entry.getKey() + "=" + entry.getValue())
			.toList();
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class))
			.withPropertyValues(properties.toArray(String[]::new))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ZkLockProperties zkLock = context.getBean(ZkLockProperties.class);
				List<Object> ours = new ArrayList<>(List.of(zkLock, zkLock.getAuth(), zkLock.getTls()));
				for (String name : context.getBeanDefinitionNames()) {
					Object bean = context.getBean(name);
					if (bean.getClass().getName().startsWith("dev.zklock.")) {
						ours.add(bean);
					}
				}
				assertThat(ours).hasSizeGreaterThan(3);
				for (Object object : ours) {
					assertNoSecrets(String.valueOf(object));
				}
			});
	}

	@Test
	void actuatorMasksTheSecretsEvenWhenShowingValues() {
		actuatorRunner().withConfiguration(AutoConfigurations.of(ZkLockSanitizingAutoConfiguration.class))
			.run((context) -> {
				String json = endpointsAsJson(context.getBean(EnvironmentEndpoint.class),
						context.getBean(ConfigurationPropertiesReportEndpoint.class));
				assertNoSecrets(json);
				assertThat(json).contains("******").contains("orders-app-scheme").contains("/some/trust.p12");
			});
	}

	@Test
	void withoutZkLockSanitizingSpringBootWouldShowTheSecrets() {
		actuatorRunner().run((context) -> {
			String json = endpointsAsJson(context.getBean(EnvironmentEndpoint.class),
					context.getBean(ConfigurationPropertiesReportEndpoint.class));
			assertThat(json).contains(CREDENTIALS).contains(certificates.password());
		});
	}

	@Test
	void sanitizingBacksOffWithoutActuator() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZkLockSanitizingAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(SanitizingFunction.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("zkLockSanitizingFunction"));
	}

	@Test
	void secretKeysAreRecognizedInEveryBindingForm() {
		assertThat(List.of("zk-lock.auth.credentials", "zkLock.auth.credentials", "ZK_LOCK_AUTH_CREDENTIALS",
				"zk-lock.tls.key-store-password", "zk-lock.tls.keyStorePassword", "zk-lock.tls.truststorepassword",
				"ZK_LOCK_TLS_TRUSTSTOREPASSWORD"))
			.allMatch(ZkLockSecretKeys::isSecret);
		assertThat(List.of("zk-lock.auth.scheme", "zk-lock.tls.key-store", "zk-lock.tls.trust-store-type",
				"spring.datasource.password", "my.credentials"))
			.noneMatch(ZkLockSecretKeys::isSecret);
	}

	private ApplicationContextRunner actuatorRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
					EnvironmentEndpointAutoConfiguration.class,
					ConfigurationPropertiesReportEndpointAutoConfiguration.class))
			.withUserConfiguration(PropertiesOnly.class)
			.withPropertyValues("management.endpoints.web.exposure.include=env,configprops",
					"management.endpoint.env.show-values=always", "management.endpoint.configprops.show-values=always",
					"zk-lock.auth.scheme=orders-app-scheme", "zk-lock.auth.credentials=" + CREDENTIALS,
					"zk-lock.tls.trust-store=/some/trust.p12",
					"zk-lock.tls.trust-store-password=" + certificates.password(),
					"zk-lock.tls.key-store-password=" + certificates.password());
	}

	private static String endpointsAsJson(EnvironmentEndpoint env, ConfigurationPropertiesReportEndpoint configprops) {
		JsonMapper mapper = JsonMapper.builder().build();
		return mapper.writeValueAsString(env.environment(null))
				+ mapper.writeValueAsString(configprops.configurationProperties());
	}

	private static Map<String, String> secureProperties() {
		Map<String, String> properties = new LinkedHashMap<>();
		properties.put("zk-lock.connect-string", server.connectString());
		properties.put("zk-lock.auth.scheme", "digest");
		properties.put("zk-lock.auth.credentials", CREDENTIALS);
		properties.put("zk-lock.tls.enabled", "true");
		properties.put("zk-lock.tls.trust-store", certificates.trustStore().toString());
		properties.put("zk-lock.tls.trust-store-password", certificates.password());
		properties.put("zk-lock.tls.key-store", certificates.clientKeyStore().toString());
		properties.put("zk-lock.tls.key-store-password", certificates.password());
		properties.put("zk-lock.startup.wait", "30s");
		return properties;
	}

	private static ConfigurableApplicationContext run(Map<String, String> properties) {
		SpringApplication application = new SpringApplication(SecureApp.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setBannerMode(Banner.Mode.OFF);
		application.setDefaultProperties(Map.of("spring.docker.compose.enabled", "false"));
		List<String> arguments = new ArrayList<>();
		properties.forEach((name, value) -> arguments.add("--" + name + "=" + value));
		TRACED_LOGGERS.forEach((logger) -> arguments.add("--logging.level." + logger + "=trace"));
		return application.run(arguments.toArray(String[]::new));
	}

	private static void assertNoSecrets(String text) {
		byte[] credentials = CREDENTIALS.getBytes(StandardCharsets.UTF_8);
		assertThat(text).doesNotContain(PASSWORD)
			.doesNotContain(certificates.password())
			.doesNotContainIgnoringCase(HexFormat.of().formatHex(credentials))
			.doesNotContain(Base64.getEncoder().encodeToString(credentials));
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@ImportAutoConfiguration(ZkLockAutoConfiguration.class)
	static class SecureApp {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(ZkLockProperties.class)
	static class PropertiesOnly {

	}

}
