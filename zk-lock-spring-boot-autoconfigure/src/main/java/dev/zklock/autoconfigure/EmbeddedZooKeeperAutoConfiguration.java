package dev.zklock.autoconfigure;

import java.nio.file.Path;

import dev.zklock.embedded.EmbeddedZooKeeper;
import dev.zklock.embedded.EmbeddedZooKeeperDependencies;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.StringUtils;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for an in-process ZooKeeper server, for development only. Active
 * when {@code zk-lock.embedded.enabled=true}; the client then connects to it. The server
 * comes from {@code dev.zklock:zk-lock-spring-boot-embedded}; without that artifact the
 * application fails at startup, naming it.
 */
@AutoConfiguration(before = ZkLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnClass(ZooKeeperServerEmbedded.class)
@ConditionalOnBooleanProperty("zk-lock.embedded.enabled")
@EnableConfigurationProperties(ZkLockProperties.class)
public final class EmbeddedZooKeeperAutoConfiguration {

	static final String EMBEDDED_ARTIFACT = "dev.zklock:zk-lock-spring-boot-embedded";

	// by name: this class is loaded whether or not the embedded artifact is present
	static final String SERVER_CLASS = "dev.zklock.embedded.EmbeddedZooKeeper";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = SERVER_CLASS)
	static final class EmbeddedServerConfiguration {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean
		EmbeddedZooKeeper embeddedZooKeeper(ZkLockProperties properties, ResourceLoader resourceLoader) {
			EmbeddedZooKeeperDependencies.check(resourceLoader.getClassLoader());
			ZkLockProperties.Embedded embedded = properties.getEmbedded();
			Path dataDirectory = StringUtils.hasText(embedded.getDataDir()) ? Path.of(embedded.getDataDir()) : null;
			return EmbeddedZooKeeper.start(embedded.getPort(), dataDirectory);
		}

		@Bean
		@ConditionalOnMissingBean(ZooKeeperConnectionDetails.class)
		EmbeddedZooKeeperConnectionDetails embeddedZooKeeperConnectionDetails(EmbeddedZooKeeper embeddedZooKeeper) {
			return new EmbeddedZooKeeperConnectionDetails(embeddedZooKeeper);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(SERVER_CLASS)
	static final class MissingEmbeddedServerConfiguration {

		// fails before the client is built, instead of connecting to a server nobody started; connection
		// details of the application's own (a container's, say) are used as they would be with the artifact
		@Bean
		@ConditionalOnMissingBean
		ZooKeeperConnectionDetails embeddedZooKeeperConnectionDetails() {
			throw new InvalidZkLockPropertyException("zk-lock.embedded.enabled", "true",
					"the embedded ZooKeeper server comes from " + EMBEDDED_ARTIFACT
							+ ", which is not on the class path",
					"Add " + EMBEDDED_ARTIFACT + " to your build with <optional>true</optional> (as "
							+ "spring-boot-docker-compose is added, so that it stays out of production jars), "
							+ "or set zk-lock.embedded.enabled=false.");
		}

	}

}
