package dev.zklock.autoconfigure.docker.compose;

import dev.zklock.autoconfigure.ZooKeeperConnectionDetails;

import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;

/**
 * {@link DockerComposeConnectionDetailsFactory} that creates
 * {@link ZooKeeperConnectionDetails} for a Docker Compose service of the official
 * {@code zookeeper} image, or of any image labelled
 * {@code org.springframework.boot.service-connection: zookeeper}. The connection string
 * is the service's host and the host port mapped to client port 2181.
 */
class ZooKeeperDockerComposeConnectionDetailsFactory
		extends DockerComposeConnectionDetailsFactory<ZooKeeperConnectionDetails> {

	/**
	 * The client port of the official image.
	 */
	static final int CLIENT_PORT = 2181;

	ZooKeeperDockerComposeConnectionDetailsFactory() {
		super("zookeeper", "org.apache.curator.framework.CuratorFramework");
	}

	@Override
	protected ZooKeeperConnectionDetails getDockerComposeConnectionDetails(DockerComposeConnectionSource source) {
		return new ZooKeeperDockerComposeConnectionDetails(source.getRunningService());
	}

	/**
	 * {@link ZooKeeperConnectionDetails} backed by a ZooKeeper {@link RunningService}.
	 */
	static final class ZooKeeperDockerComposeConnectionDetails extends DockerComposeConnectionDetails
			implements ZooKeeperConnectionDetails {

		private final String connectString;

		ZooKeeperDockerComposeConnectionDetails(RunningService service) {
			super(service);
			String host = service.host();
			String connectHost = (host.indexOf(':') >= 0 && !host.startsWith("[")) ? "[" + host + "]" : host;
			this.connectString = connectHost + ":" + service.ports().get(CLIENT_PORT);
		}

		@Override
		public String getConnectString() {
			return this.connectString;
		}

	}

}
