package dev.zklock.sample;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import dev.zklock.autoconfigure.ZooKeeperConnectionDetails;
import dev.zklock.embedded.EmbeddedZooKeeper;

/**
 * Logs, once the sample is ready, where everything is: the dashboard, the API, the
 * Actuator endpoints, ZooKeeper and the database.
 */
@Component
class ReadyLogger {

	private static final Logger logger = LoggerFactory.getLogger(ReadyLogger.class);

	private final Environment environment;

	private final ObjectProvider<ZooKeeperConnectionDetails> zooKeeper;

	private final ObjectProvider<EmbeddedZooKeeper> embeddedZooKeeper;

	ReadyLogger(Environment environment, ObjectProvider<ZooKeeperConnectionDetails> zooKeeper,
			ObjectProvider<EmbeddedZooKeeper> embeddedZooKeeper) {
		this.environment = environment;
		this.zooKeeper = zooKeeper;
		this.embeddedZooKeeper = embeddedZooKeeper;
	}

	@EventListener(ApplicationReadyEvent.class)
	void ready() {
		String address = this.environment.getProperty("server.address", "localhost");
		String serverPort = this.environment.getProperty("local.server.port");
		String managementPort = this.environment.getProperty("local.management.port");
		String base = "http://" + address + ":" + serverPort;
		String actuator = "http://" + address + ":" + ((managementPort != null) ? managementPort : serverPort)
				+ this.environment.getProperty("management.endpoints.web.base-path", "/actuator");
		ZooKeeperConnectionDetails details = this.zooKeeper.getIfAvailable();
		String zooKeeper = (details != null) ? details.getConnectString() : "none";
		String kind = (this.embeddedZooKeeper.getIfAvailable() != null) ? "embedded, in this process" : "external";
		logger.info("zk-lock sample ready: dashboard {}/ | API {}/orders {}/stock {}/jobs/runs | Actuator {}/health "
				+ "{}/metrics {}/locks | ZooKeeper {} ({}) | database {}", base, base, base, base, actuator, actuator,
				actuator, zooKeeper, kind, this.environment.getProperty("spring.datasource.url"));
	}

}
