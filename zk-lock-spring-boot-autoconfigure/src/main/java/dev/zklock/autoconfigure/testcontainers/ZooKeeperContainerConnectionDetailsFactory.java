package dev.zklock.autoconfigure.testcontainers;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.zklock.autoconfigure.ZooKeeperConnectionDetails;
import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.Container;

import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

/**
 * {@link ContainerConnectionDetailsFactory} that creates
 * {@link ZooKeeperConnectionDetails} from a {@link ServiceConnection @ServiceConnection}
 * ZooKeeper container.
 * <p>
 * Testcontainers has no ZooKeeper module, so any {@link Container} qualifies, such as a
 * {@code GenericContainer}, and it is recognised by its connection name: the image name
 * without registry and tag, {@code zookeeper} for the official image. A container of
 * another image names its connection: {@code @ServiceConnection(name = "zookeeper")}.
 * <p>
 * The connection string is the container's host and the host port mapped to client
 * port 2181. A container on the host network ({@code withNetworkMode("host")}) has no
 * mapped ports: the server then listens on the host at the {@code clientPort} of its
 * {@code /conf/zoo.cfg} (the official image's configuration file), or at 2181 when that
 * file sets none.
 */
class ZooKeeperContainerConnectionDetailsFactory
		extends ContainerConnectionDetailsFactory<Container<?>, ZooKeeperConnectionDetails> {

	/**
	 * The client port of the official image.
	 */
	static final int CLIENT_PORT = 2181;

	/**
	 * The official image's configuration file.
	 */
	static final String CONFIG_FILE = "/conf/zoo.cfg";

	ZooKeeperContainerConnectionDetailsFactory() {
		super("zookeeper", "org.apache.curator.framework.CuratorFramework");
	}

	@Override
	protected ZooKeeperConnectionDetails getContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
		return new ZooKeeperContainerConnectionDetails(source);
	}

	/**
	 * The connection string of a running ZooKeeper container.
	 * @param container the container
	 * @return its host and client port
	 */
	static String connectString(Container<?> container) {
		String host = container.getHost();
		String connectHost = (host.indexOf(':') >= 0 && !host.startsWith("[")) ? "[" + host + "]" : host;
		int port = isOnHostNetwork(container) ? configuredClientPort(container) : container.getMappedPort(CLIENT_PORT);
		return connectHost + ":" + port;
	}

	private static boolean isOnHostNetwork(Container<?> container) {
		InspectContainerResponse info = container.getContainerInfo();
		return info != null && info.getHostConfig() != null && "host".equals(info.getHostConfig().getNetworkMode());
	}

	private static int configuredClientPort(Container<?> container) {
		try {
			return container.copyFileFromContainer(CONFIG_FILE, ZooKeeperContainerConnectionDetailsFactory::clientPort);
		}
		catch (NotFoundException ex) {
			return CLIENT_PORT;
		}
	}

	private static int clientPort(InputStream config) throws IOException {
		Properties properties = new Properties();
		properties.load(config);
		String port = properties.getProperty("clientPort");
		if (port == null || port.isBlank()) {
			return CLIENT_PORT;
		}
		try {
			return Integer.parseInt(port.trim());
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException(
					"Invalid clientPort '" + port + "' in the container's " + CONFIG_FILE + "; it must be a number", ex);
		}
	}

	/**
	 * {@link ZooKeeperConnectionDetails} backed by a {@link ContainerConnectionSource}.
	 */
	static final class ZooKeeperContainerConnectionDetails extends ContainerConnectionDetails<Container<?>>
			implements ZooKeeperConnectionDetails {

		private volatile @Nullable String connectString;

		ZooKeeperContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
			super(source);
		}

		@Override
		public String getConnectString() {
			String result = this.connectString;
			if (result == null) {
				result = connectString(getContainer());
				this.connectString = result;
			}
			return result;
		}

	}

}
