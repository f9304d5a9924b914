package dev.zklock.autoconfigure.docker.compose;

import java.util.Map;

import dev.zklock.autoconfigure.ZooKeeperConnectionDetails;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.docker.compose.core.ConnectionPorts;
import org.springframework.boot.docker.compose.core.ImageReference;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * Tests for {@link ZooKeeperDockerComposeConnectionDetailsFactory}.
 */
class ZooKeeperDockerComposeConnectionDetailsFactoryTests {

	private final ZooKeeperDockerComposeConnectionDetailsFactory factory = new ZooKeeperDockerComposeConnectionDetailsFactory();

	@Test
	void officialImageMapsToHostAndMappedClientPort() {
		ConnectionDetails details = this.factory.getConnectionDetails(source("zookeeper:3.9", Map.of(), "127.0.0.1"));
		assertThat(details).isInstanceOf(ZooKeeperConnectionDetails.class);
		assertThat(((ZooKeeperConnectionDetails) details).getConnectString()).isEqualTo("127.0.0.1:32768");
	}

	@Test
	void fullyQualifiedOfficialImageMatches() {
		ConnectionDetails details = this.factory
			.getConnectionDetails(source("docker.io/library/zookeeper:3.9.4", Map.of(), "localhost"));
		assertThat(((ZooKeeperConnectionDetails) details).getConnectString()).isEqualTo("localhost:32768");
	}

	@Test
	void otherImageLabelledAsZooKeeperMatches() {
		ConnectionDetails details = this.factory.getConnectionDetails(source("example/zk-custom:1",
				Map.of("org.springframework.boot.service-connection", "zookeeper"), "localhost"));
		assertThat(((ZooKeeperConnectionDetails) details).getConnectString()).isEqualTo("localhost:32768");
	}

	@Test
	void otherImageDoesNotMatch() {
		assertThat(this.factory.getConnectionDetails(source("redis:7", Map.of(), "localhost"))).isNull();
	}

	@Test
	void ipv6HostIsBracketed() {
		ConnectionDetails details = this.factory.getConnectionDetails(source("zookeeper", Map.of(), "::1"));
		assertThat(((ZooKeeperConnectionDetails) details).getConnectString()).isEqualTo("[::1]:32768");
	}

	private DockerComposeConnectionSource source(String image, Map<String, String> labels, String host) {
		ConnectionPorts ports = mock(ConnectionPorts.class);
		given(ports.get(2181)).willReturn(32768);
		RunningService service = mock(RunningService.class);
		given(service.name()).willReturn("zookeeper");
		given(service.image()).willReturn(ImageReference.of(image));
		given(service.host()).willReturn(host);
		given(service.ports()).willReturn(ports);
		given(service.labels()).willReturn(labels);
		given(service.env()).willReturn(Map.of());
		DockerComposeConnectionSource source = mock(DockerComposeConnectionSource.class);
		given(source.getRunningService()).willReturn(service);
		given(source.getEnvironment()).willReturn(new MockEnvironment());
		return source;
	}

}
