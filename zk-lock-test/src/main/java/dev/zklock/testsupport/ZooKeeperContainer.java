package dev.zklock.testsupport;

import java.time.Duration;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

/**
 * A standalone ZooKeeper server in a Docker container, on the host network: the server
 * listens on 127.0.0.1 at a free port written into its {@code /conf/zoo.cfg}. No bridge
 * network, no mapped ports. The AdminServer is off. The container is ready once the
 * server has loaded its database (log line {@code Using checkIntervalMs=}).
 * <p>
 * The image is the official {@code zookeeper:3.9} unless system property
 * {@value #IMAGE_PROPERTY} or environment variable {@value #IMAGE_ENVIRONMENT_VARIABLE}
 * names another one with the same interface ({@code /conf/zoo.cfg}, {@code /data},
 * {@code zkServer.sh start-foreground}), such as {@code zookeeper-local:3.9.5} from
 * {@code .ci/build-zookeeper-image.sh}.
 * <p>
 * For {@code @ServiceConnection}, {@code ZooKeeperContainerConnectionDetailsFactory}
 * reads the client port from the container's {@code /conf/zoo.cfg}. Mark tests that use
 * this container with {@link DockerTest @DockerTest}.
 */
public class ZooKeeperContainer extends GenericContainer<ZooKeeperContainer> {

	/**
	 * System property that names the image.
	 */
	public static final String IMAGE_PROPERTY = "zklock.test.zookeeper-image";

	/**
	 * Environment variable that names the image when the system property is not set.
	 */
	public static final String IMAGE_ENVIRONMENT_VARIABLE = "ZK_LOCK_TEST_ZOOKEEPER_IMAGE";

	/**
	 * The image used when neither the property nor the variable is set.
	 */
	public static final String DEFAULT_IMAGE = "zookeeper:3.9";

	private final int clientPort;

	private Duration tickTime = Duration.ofMillis(2000);

	/**
	 * A container of the configured image ({@link #imageName()}).
	 */
	public ZooKeeperContainer() {
		this(DockerImageName.parse(imageName()));
	}

	/**
	 * A container of the given image.
	 * @param image an image with the official image's interface
	 */
	public ZooKeeperContainer(DockerImageName image) {
		super(image);
		this.clientPort = FreePorts.next();
		// no exposed ports: Testcontainers would wait for port mappings that host networking never makes
		withNetworkMode("host");
		// a small heap and a quick start; both images' zkServer.sh read these
		withEnv("ZK_SERVER_HEAP", "128");
		withEnv("JVMFLAGS", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1");
		waitingFor(Wait.forLogMessage(".*Using checkIntervalMs=.*", 1).withStartupTimeout(Duration.ofSeconds(90)));
	}

	/**
	 * The image to use: system property {@value #IMAGE_PROPERTY}, else environment
	 * variable {@value #IMAGE_ENVIRONMENT_VARIABLE}, else {@value #DEFAULT_IMAGE}.
	 * @return the image name
	 */
	public static String imageName() {
		String image = System.getProperty(IMAGE_PROPERTY);
		if (image == null || image.isBlank()) {
			image = System.getenv(IMAGE_ENVIRONMENT_VARIABLE);
		}
		return (image == null || image.isBlank()) ? DEFAULT_IMAGE : image.trim();
	}

	/**
	 * Set the server's tick time.
	 * @param tickTime the tick time, 2 s by default
	 * @return this container
	 */
	public ZooKeeperContainer withTickTime(Duration tickTime) {
		this.tickTime = tickTime;
		return this;
	}

	/**
	 * The client port on 127.0.0.1.
	 * @return the port
	 */
	public int clientPort() {
		return this.clientPort;
	}

	/**
	 * The connection string, {@code 127.0.0.1:port}.
	 * @return the connection string
	 */
	public String connectString() {
		return "127.0.0.1:" + this.clientPort;
	}

	@Override
	protected void configure() {
		super.configure();
		String zooCfg = ZooKeeperConfig.server(this.tickTime, "/data", this.clientPort).toText();
		withCopyToContainer(Transferable.of(zooCfg), "/conf/zoo.cfg");
	}

}
