package dev.zklock.compatibility;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * Builds the {@link NeighbourApplication} the way the tests run it: a web server and a
 * service registration on 127.0.0.1 only, and the {@code locks} endpoint exposed.
 */
final class NeighbourApps {

	private NeighbourApps() {
	}

	static SpringApplicationBuilder builder(String service, String... properties) {
		List<String> all = new ArrayList<>(List.of("spring.application.name=" + service, "server.port=0",
				"server.address=127.0.0.1", "spring.cloud.zookeeper.discovery.instance-host=127.0.0.1",
				"spring.cloud.zookeeper.discovery.instance-ip-address=127.0.0.1",
				"management.endpoints.web.exposure.include=health,locks"));
		all.addAll(List.of(properties));
		return new SpringApplicationBuilder(NeighbourApplication.class).properties(all.toArray(String[]::new));
	}

}
