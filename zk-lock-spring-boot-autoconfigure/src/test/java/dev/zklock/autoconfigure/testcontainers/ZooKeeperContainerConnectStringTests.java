package dev.zklock.autoconfigure.testcontainers;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.HostConfig;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.Container;
import org.testcontainers.utility.ThrowingFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * Tests for how {@link ZooKeeperContainerConnectionDetailsFactory} turns a container into
 * a connection string.
 */
class ZooKeeperContainerConnectStringTests {

	@Test
	void bridgedContainerUsesMappedClientPort() {
		Container<?> container = container("bridge", "localhost");
		given(container.getMappedPort(2181)).willReturn(32771);
		assertThat(ZooKeeperContainerConnectionDetailsFactory.connectString(container)).isEqualTo("localhost:32771");
	}

	@Test
	void hostNetworkContainerUsesClientPortOfItsConfig() {
		Container<?> container = container("host", "localhost");
		givenConfig(container, "dataDir=/data\nclientPort=24517\nclientPortAddress=127.0.0.1\n");
		assertThat(ZooKeeperContainerConnectionDetailsFactory.connectString(container)).isEqualTo("localhost:24517");
	}

	@Test
	void hostNetworkContainerWithoutClientPortSettingUses2181() {
		Container<?> container = container("host", "localhost");
		givenConfig(container, "dataDir=/data\nserver.1=localhost:2888:3888;2181\n");
		assertThat(ZooKeeperContainerConnectionDetailsFactory.connectString(container)).isEqualTo("localhost:2181");
	}

	@Test
	void hostNetworkContainerWithoutConfigUses2181() {
		Container<?> container = container("host", "localhost");
		given(container.copyFileFromContainer(eq("/conf/zoo.cfg"), any(ThrowingFunction.class)))
			.willThrow(new NotFoundException("no such file"));
		assertThat(ZooKeeperContainerConnectionDetailsFactory.connectString(container)).isEqualTo("localhost:2181");
	}

	@Test
	void invalidClientPortIsReported() {
		Container<?> container = container("host", "localhost");
		givenConfig(container, "clientPort=two\n");
		assertThatIllegalStateException()
			.isThrownBy(() -> ZooKeeperContainerConnectionDetailsFactory.connectString(container))
			.withMessageContaining("Invalid clientPort 'two'")
			.withMessageContaining("/conf/zoo.cfg");
	}

	@Test
	void ipv6HostIsBracketed() {
		Container<?> container = container("bridge", "::1");
		given(container.getMappedPort(2181)).willReturn(32771);
		assertThat(ZooKeeperContainerConnectionDetailsFactory.connectString(container)).isEqualTo("[::1]:32771");
	}

	private Container<?> container(String networkMode, String host) {
		Container<?> container = mock(Container.class);
		InspectContainerResponse info = mock(InspectContainerResponse.class);
		given(info.getHostConfig()).willReturn(HostConfig.newHostConfig().withNetworkMode(networkMode));
		given(container.getContainerInfo()).willReturn(info);
		given(container.getHost()).willReturn(host);
		return container;
	}

	private void givenConfig(Container<?> container, String config) {
		given(container.copyFileFromContainer(eq("/conf/zoo.cfg"), any(ThrowingFunction.class))).willAnswer((invocation) -> {
			ThrowingFunction<InputStream, ?> function = invocation.getArgument(1);
			return function.apply(new ByteArrayInputStream(config.getBytes(StandardCharsets.ISO_8859_1)));
		});
	}

}
