package dev.zklock.bench;

import org.apache.curator.framework.CuratorFramework;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.zklock.LockTemplate;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.PauseDetector;

/**
 * A started {@link BenchConfiguration} context connected to the benchmark server.
 */
public final class BenchContext implements AutoCloseable {

	/**
	 * System property with the server's connect string, set by
	 * {@link BenchmarkSuite} for every forked JVM.
	 */
	public static final String CONNECT_PROPERTY = "zklock.bench.zookeeper";

	/**
	 * Base path of zk-lock's nodes.
	 */
	public static final String BASE_PATH = "/bench/zk-lock";

	private final ConfigurableApplicationContext context;

	private BenchContext(ConfigurableApplicationContext context) {
		this.context = context;
	}

	/**
	 * Start the context.
	 * @return the context
	 */
	public static BenchContext start() {
		return start(new Class<?>[0]);
	}

	/**
	 * Start the context with more configuration.
	 * @param configurations configuration classes added to {@link BenchConfiguration}
	 * @return the context
	 */
	public static BenchContext start(Class<?>... configurations) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(BenchConfiguration.class)
			.sources(configurations)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.registerShutdownHook(false)
			.properties("zk-lock.connect-string=" + connectString(), "zk-lock.base-path=" + BASE_PATH,
					"logging.level.root=WARN", "spring.docker.compose.enabled=false")
			.run();
		return new BenchContext(context);
	}

	/**
	 * The server's connect string.
	 * @return the connect string
	 * @throws IllegalStateException when the property is missing
	 */
	public static String connectString() {
		String connectString = System.getProperty(CONNECT_PROPERTY);
		if (connectString == null) {
			throw new IllegalStateException("System property " + CONNECT_PROPERTY
					+ " is not set; run the benchmarks through BenchmarkSuite (./mvnw -Pbenchmark ... verify)");
		}
		return connectString;
	}

	/**
	 * The auto-configured Curator client, also used by the raw Curator rows.
	 * @return the client
	 */
	public CuratorFramework client() {
		return this.context.getBean(CuratorFramework.class);
	}

	/**
	 * The annotated bean, behind its Spring proxy.
	 * @return the proxy
	 */
	public LockedService service() {
		return this.context.getBean(LockedService.class);
	}

	/**
	 * The auto-configured template.
	 * @return the template
	 */
	public LockTemplate template() {
		return this.context.getBean(LockTemplate.class);
	}

	/**
	 * The auto-configured lock manager behind the proxy and the template.
	 * @return the manager
	 */
	public CuratorLockManager lockManager() {
		return this.context.getBean(CuratorLockManager.class);
	}

	/**
	 * The auto-configured pause detector (pause detection is on by default).
	 * @return the detector
	 */
	public PauseDetector pauseDetector() {
		return this.context.getBean(PauseDetector.class);
	}

	@Override
	public void close() {
		this.context.close();
	}

}
