package dev.zklock.autoconfigure;

import java.net.BindException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import dev.zklock.embedded.EmbeddedZooKeeper;
import dev.zklock.testsupport.FreePorts;
import dev.zklock.testsupport.InJvmZooKeeper;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link EmbeddedZooKeeperAutoConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedZooKeeperAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EmbeddedZooKeeperAutoConfiguration.class,
				ZkLockAutoConfiguration.class));

	@Test
	void startsOnAFreePortAndTheClientConnectsToIt(CapturedOutput output) {
		Path[] dataDirectory = new Path[1];
		this.runner.withPropertyValues("zk-lock.embedded.enabled=true", "zk-lock.connect-string=127.0.0.1:1")
			.run((context) -> {
				assertThat(context).hasSingleBean(EmbeddedZooKeeper.class)
					.hasSingleBean(ZooKeeperConnectionDetails.class)
					.doesNotHaveBean(PropertiesZooKeeperConnectionDetails.class);
				EmbeddedZooKeeper server = context.getBean(EmbeddedZooKeeper.class);
				assertThat(server.getPort()).isPositive();
				assertThat(server.getConnectString()).isEqualTo("127.0.0.1:" + server.getPort());
				assertThat(context.getBean(ZooKeeperConnectionDetails.class).getConnectString())
					.isEqualTo(server.getConnectString());
				CuratorFramework client = context.getBean(CuratorFramework.class);
				assertThat(client.getZookeeperClient().isConnected()).isTrue();
				assertThat(client.getZookeeperClient().getCurrentConnectionString())
					.isEqualTo(server.getConnectString());
				client.create().forPath("/embedded-probe", "ok".getBytes(StandardCharsets.UTF_8));
				assertThat(client.getData().forPath("/embedded-probe")).asString(StandardCharsets.UTF_8)
					.isEqualTo("ok");
				dataDirectory[0] = server.getDataDirectory();
				assertThat(dataDirectory[0]).isDirectory();
				assertThat(output).contains("embedded ZooKeeper server, for DEVELOPMENT ONLY, listening on "
						+ server.getConnectString() + " with data in " + dataDirectory[0] + " (removed on shutdown)");
			});
		assertThat(dataDirectory[0]).doesNotExist();
		assertThat(dataDirectory[0].getParent()).doesNotExist();
	}

	@Test
	void usesTheGivenPortAndKeepsTheGivenDataDirectory(@TempDir Path dir) {
		int port = FreePorts.next();
		Path data = dir.resolve("zk-data");
		this.runner
			.withPropertyValues("zk-lock.embedded.enabled=true", "zk-lock.embedded.port=" + port,
					"zk-lock.embedded.data-dir=" + data)
			.run((context) -> {
				assertThat(context.getBean(EmbeddedZooKeeper.class).getConnectString()).isEqualTo("127.0.0.1:" + port);
				CuratorFramework client = context.getBean(CuratorFramework.class);
				assertThat(client.getZookeeperClient().getCurrentConnectionString()).isEqualTo("127.0.0.1:" + port);
				client.create().forPath("/kept", "v".getBytes(StandardCharsets.UTF_8));
			});
		assertThat(data.resolve("version-2")).isDirectory();
		// a second run on the same data directory sees the node written by the first
		this.runner
			.withPropertyValues("zk-lock.embedded.enabled=true", "zk-lock.embedded.data-dir=" + data)
			.run((context) -> assertThat(context.getBean(CuratorFramework.class).checkExists().forPath("/kept"))
				.isNotNull());
	}

	@Test
	void failsWhenTheGivenPortIsTaken() throws Exception {
		try (InJvmZooKeeper other = InJvmZooKeeper.builder().start()) {
			this.runner.withPropertyValues("zk-lock.embedded.enabled=true", "zk-lock.embedded.port=" + other.port())
				.run((context) -> {
					assertThat(context).hasFailed();
					assertThat(context.getStartupFailure()).rootCause().isInstanceOf(BindException.class);
					FailureAnalysis analysis = new EmbeddedZooKeeperFailureAnalyzer()
						.analyze(context.getStartupFailure());
					assertThat(analysis.getDescription())
						.startsWith("zk-lock.embedded.port " + other.port() + " is already in use on 127.0.0.1");
					assertThat(analysis.getAction()).contains("zk-lock.embedded.port=0");
				});
		}
	}

	@Test
	void failsNamingMetricsCoreWhenItIsMissing() {
		this.runner.withPropertyValues("zk-lock.embedded.enabled=true")
			.withClassLoader(new FilteredClassLoader("com.codahale.metrics"))
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new EmbeddedZooKeeperFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("needs io.dropwizard.metrics:metrics-core at run time")
					.doesNotContain("snappy");
				assertThat(analysis.getAction()).startsWith("Add io.dropwizard.metrics:metrics-core to your build");
			});
	}

	@Test
	void failsNamingBothLibrariesWhenBothAreMissing() {
		this.runner.withPropertyValues("zk-lock.embedded.enabled=true")
			.withClassLoader(new FilteredClassLoader("com.codahale.metrics", "org.xerial.snappy"))
			.run((context) -> {
				FailureAnalysis analysis = new EmbeddedZooKeeperFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getAction())
					.startsWith("Add io.dropwizard.metrics:metrics-core and org.xerial.snappy:snappy-java");
			});
	}

	@Test
	void failsNamingTheEmbeddedArtifactWhenItIsMissing() {
		this.runner.withPropertyValues("zk-lock.embedded.enabled=true")
			.withClassLoader(new FilteredClassLoader("dev.zklock.embedded"))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(InvalidZkLockPropertyException.class)
					.hasMessageContaining("zk-lock.embedded.enabled")
					.hasMessageContaining("comes from dev.zklock:zk-lock-spring-boot-embedded")
					.hasMessageContaining("<optional>true</optional>");
				FailureAnalysis analysis = new InvalidZkLockPropertyFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis.getAction())
					.startsWith("Add dev.zklock:zk-lock-spring-boot-embedded to your build with <optional>true</optional>");
			});
	}

	@Test
	void isOffByDefault() throws Exception {
		try (InJvmZooKeeper server = InJvmZooKeeper.builder().start()) {
			this.runner.withPropertyValues("zk-lock.connect-string=" + server.connectString())
				.run((context) -> assertThat(context).doesNotHaveBean(EmbeddedZooKeeper.class)
					.hasSingleBean(PropertiesZooKeeperConnectionDetails.class));
		}
	}

	@Test
	void backsOffWithoutTheServerClasses() throws Exception {
		try (InJvmZooKeeper server = InJvmZooKeeper.builder().start()) {
			this.runner
				.withPropertyValues("zk-lock.embedded.enabled=true",
						"zk-lock.connect-string=" + server.connectString())
				.withClassLoader(new FilteredClassLoader(ZooKeeperServerEmbedded.class))
				.run((context) -> assertThat(context).doesNotHaveBean(EmbeddedZooKeeper.class)
					.hasSingleBean(PropertiesZooKeeperConnectionDetails.class)
					.hasSingleBean(CuratorFramework.class));
		}
	}

	@Test
	void serverIsStoppedAndItsDirectoryRemovedWhenALaterBeanFails() {
		FailingBeanConfiguration.dataDirectory = null;
		this.runner.withPropertyValues("zk-lock.embedded.enabled=true")
			.withUserConfiguration(FailingBeanConfiguration.class)
			.run((context) -> assertThat(context).hasFailed());
		assertThat(FailingBeanConfiguration.dataDirectory).isNotNull().doesNotExist();
	}

	@Configuration(proxyBeanMethods = false)
	static class FailingBeanConfiguration {

		static Path dataDirectory;

		@Bean
		Object failing(EmbeddedZooKeeper server) {
			dataDirectory = server.getDataDirectory();
			throw new IllegalStateException("fails after the embedded server started");
		}

	}

}
