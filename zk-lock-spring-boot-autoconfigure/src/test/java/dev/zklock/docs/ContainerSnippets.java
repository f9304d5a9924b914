package dev.zklock.docs;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;

import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

/**
 * The Testcontainers example of docs/testing.md. Not a test class: nothing starts
 * the container.
 */
class ContainerSnippets {

	@Container
	@ServiceConnection(name = "zookeeper")
	static GenericContainer<?> zookeeper = new GenericContainer<>("zookeeper:3.9").withExposedPorts(2181);

}
