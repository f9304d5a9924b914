package dev.zklock.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the startup validation of {@link ZkLockProperties}, read through
 * {@link InvalidZkLockPropertyFailureAnalyzer} as a user would see it.
 */
class ZkLockPropertiesValidationTests {

	@RegisterExtension
	static final ClassFixture<InJvmZooKeeper> server = ClassFixture.of(() -> InJvmZooKeeper.builder().start());

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class))
		.withPropertyValues("zk-lock.connect-string=" + server.get().connectString());

	@ParameterizedTest
	@CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
			zk-lock.connect-string= | zk-lock.connect-string | "" | it must not be blank
			zk-lock.connect-string=a:1,,b:2 | zk-lock.connect-string | "a:1,,b:2" | it contains an empty host entry
			zk-lock.connect-string=host:http | zk-lock.connect-string | "host:http" | has port 'http', which is not a number from 1 to 65535
			zk-lock.connect-string=h:70000 | zk-lock.connect-string | "h:70000" | has port '70000'
			zk-lock.connect-string=::1:2181 | zk-lock.connect-string | "::1:2181" | write IPv6 addresses in brackets
			zk-lock.session-timeout=0s | zk-lock.session-timeout | "0s" | it must be a positive duration
			zk-lock.session-timeout=-5s | zk-lock.session-timeout | "-5s" | it must be a positive duration
			zk-lock.session-timeout=30000d | zk-lock.session-timeout | "2592000000s" | it must be from 1ms to 2147483647ms
			zk-lock.connection-timeout=0ms | zk-lock.connection-timeout | "0s" | it must be a positive duration
			zk-lock.retry.base-sleep=-1ms | zk-lock.retry.base-sleep | "-1ms" | it must be a positive duration
			zk-lock.retry.max-sleep=0s | zk-lock.retry.max-sleep | "0s" | it must be a positive duration
			zk-lock.retry.max-sleep=50ms | zk-lock.retry.max-sleep | "50ms" | it is shorter than 'zk-lock.retry.base-sleep' (100ms)
			zk-lock.retry.max-retries=-1 | zk-lock.retry.max-retries | "-1" | it must be from 0 to 29
			zk-lock.retry.max-retries=30 | zk-lock.retry.max-retries | "30" | it must be from 0 to 29
			zk-lock.startup.wait=0s | zk-lock.startup.wait | "0s" | it must be a positive duration
			zk-lock.default-timeout=-1s | zk-lock.default-timeout | "-1s" | it must not be negative
			zk-lock.base-path=locks | zk-lock.base-path | "locks" | it must start with '/'
			zk-lock.base-path=/locks/ | zk-lock.base-path | "/locks/" | it must not end with '/'
			zk-lock.base-path=/a//b | zk-lock.base-path | "/a//b" | it contains an empty segment
			zk-lock.base-path=/a/../b | zk-lock.base-path | "/a/../b" | it contains a relative segment '..'
			zk-lock.base-path=/a/./b | zk-lock.base-path | "/a/./b" | it contains a relative segment '.'
			zk-lock.base-path=/zookeeper/x | zk-lock.base-path | "/zookeeper/x" | '/zookeeper' is reserved by ZooKeeper
			zk-lock.namespace=/app | zk-lock.namespace | "/app" | it must not start or end with '/'
			zk-lock.namespace=a//b | zk-lock.namespace | "a//b" | it contains an empty segment
			zk-lock.embedded.port=70000 | zk-lock.embedded.port | "70000" | it must be from 0 to 65535
			zk-lock.local-handoff.max-passes=-1 | zk-lock.local-handoff.max-passes | "-1" | it must not be negative
			zk-lock.local-handoff.max-time=-1ms | zk-lock.local-handoff.max-time | "-1ms" | it must not be negative
			zk-lock.local-handoff.max-time=200000000d | zk-lock.local-handoff.max-time | "17280000000000s" | it is longer than 106751 days
			""")
	void rejectsInvalidValue(String property, String name, String value, String reason) {
		this.runner.withPropertyValues(property).run(failsWith(name, value, reason));
	}

	@Test
	void actionSaysWhatToSet() {
		this.runner.withPropertyValues("zk-lock.session-timeout=0s").run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertThat(analysis.getDescription())
				.isEqualTo("Invalid value '0s' for property 'zk-lock.session-timeout': it must be a positive duration.");
			assertThat(analysis.getAction())
				.isEqualTo("Set 'zk-lock.session-timeout' to a positive duration, such as 40s.");
		});
	}

	@Test
	void authSchemeWithoutCredentials() {
		this.runner.withPropertyValues("zk-lock.auth.scheme=digest")
			.run(failsWith("zk-lock.auth.credentials", "(not set)", "'zk-lock.auth.scheme' is 'digest'"));
	}

	@Test
	void credentialsWithoutSchemeNeverShowTheCredentials() {
		this.runner.withPropertyValues("zk-lock.auth.credentials=bob:hunter2").run((context) -> {
			failsWith("zk-lock.auth.scheme", "(not set)", "credentials' is set but no scheme").accept(context);
			assertThat(analyze(context).getDescription() + analyze(context).getAction()).doesNotContain("hunter2");
			assertThat(context.getStartupFailure()).rootCause().message().doesNotContain("hunter2");
		});
	}

	@Test
	void digestCredentialsWithoutColonAreHidden() {
		this.runner.withPropertyValues("zk-lock.auth.scheme=digest", "zk-lock.auth.credentials=hunter2")
			.run((context) -> {
				failsWith("zk-lock.auth.credentials", "(hidden)", "user:password").accept(context);
				assertThat(analyze(context).getDescription()).doesNotContain("hunter2");
				assertThat(context.getStartupFailure()).rootCause().message().doesNotContain("hunter2");
			});
	}

	@Test
	void tlsWithoutTrustStore() {
		this.runner.withPropertyValues("zk-lock.tls.enabled=true", "zk-lock.tls.trust-store-password=hunter2")
			.run((context) -> {
				failsWith("zk-lock.tls.trust-store", "(not set)", "TLS is enabled").accept(context);
				assertThat(analyze(context).getAction()).contains("zk-lock.tls.trust-store")
					.doesNotContain("hunter2");
			});
	}

	@Test
	void tlsWithMissingTrustStoreFile(@TempDir Path dir) {
		String missing = dir.resolve("missing.p12").toString();
		this.runner.withPropertyValues("zk-lock.tls.enabled=true", "zk-lock.tls.trust-store=" + missing)
			.run(failsWith("zk-lock.tls.trust-store", missing, "no such file"));
	}

	@Test
	void tlsWithMissingKeyStoreFile(@TempDir Path dir) throws Exception {
		Path trustStore = Files.createFile(dir.resolve("trust.p12"));
		String missing = dir.resolve("missing-key.p12").toString();
		this.runner
			.withPropertyValues("zk-lock.tls.enabled=true", "zk-lock.tls.trust-store=" + trustStore,
					"zk-lock.tls.key-store=" + missing)
			.run(failsWith("zk-lock.tls.key-store", missing, "no such file"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "zk-lock.default-timeout=0s", "zk-lock.base-path=/", "zk-lock.base-path=/a/b-c/d_e",
			"zk-lock.retry.max-retries=0", "zk-lock.retry.max-sleep=100ms", "zk-lock.namespace=",
			"zk-lock.namespace=zookeeper-apps", "zk-lock.connect-string=127.0.0.1:1,[::1]:2/chroot",
			"zk-lock.local-handoff.max-passes=0", "zk-lock.local-handoff.max-time=0s" })
	void acceptsBoundaryValues(String property) {
		// a connect string without a server behind it must not fail validation
		String[] extra = property.startsWith("zk-lock.connect-string")
				? new String[] { "zk-lock.startup.fail-fast=false", "zk-lock.startup.wait=10ms" } : new String[0];
		this.runner.withPropertyValues(property).withPropertyValues(extra).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(CuratorFramework.class);
		});
	}

	@Test
	void basePathUnderZookeeperIsAllowedInsideANamespace() {
		this.runner.withPropertyValues("zk-lock.namespace=app", "zk-lock.base-path=/zookeeper/locks")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	private static ContextConsumer<AssertableApplicationContext> failsWith(String property, String value, String reason) {
		return (context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidZkLockPropertyException.class)
				.hasFieldOrPropertyWithValue("property", property)
				.hasFieldOrPropertyWithValue("value", value);
			FailureAnalysis analysis = analyze(context);
			assertThat(analysis.getDescription())
				.startsWith("Invalid value '" + value + "' for property '" + property + "': ")
				.contains(reason);
			assertThat(analysis.getAction()).contains(property);
		};
	}

	private static FailureAnalysis analyze(AssertableApplicationContext context) {
		FailureAnalysis analysis = new InvalidZkLockPropertyFailureAnalyzer().analyze(context.getStartupFailure());
		assertThat(analysis).isNotNull();
		return analysis;
	}

}
