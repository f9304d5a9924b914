package dev.zklock.testsupport;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * The options that every ZooKeeper server fixture shares: tick time, container sweep,
 * extra {@code zoo.cfg} settings and the longest wait for the server to start. They
 * make the fixture's {@code zoo.cfg}, the one place where a fixture's configuration is
 * written. Each fixture's builder extends it directly; a fixture whose server runs in a
 * JVM of its own keeps that JVM's options beside it, in a {@code ServerJvmOptions}.
 *
 * @param <B> the builder type, returned by each option for chaining
 */
public abstract class ServerOptions<B extends ServerOptions<B>> {

	private Duration tickTime;

	private @Nullable Duration containerCheckInterval;

	private @Nullable Integer containerSweepsPerMinute;

	private final Map<String, String> settings = new LinkedHashMap<>();

	private Duration startupTimeout;

	ServerOptions(Duration tickTime, Duration startupTimeout) {
		this.tickTime = tickTime;
		this.startupTimeout = startupTimeout;
	}

	/**
	 * The server's tick time; session timeouts are clamped to 2 to 20 ticks, and an
	 * ensemble's election and sync limits count in ticks.
	 * @param tickTime the tick time
	 * @return this builder
	 */
	public B tickTime(Duration tickTime) {
		this.tickTime = tickTime;
		return self();
	}

	/**
	 * How often the server removes empty container nodes
	 * ({@code znode.container.checkIntervalMs}, one minute by default).
	 * @param interval the sweep interval
	 * @return this builder
	 */
	public B containerCheckInterval(Duration interval) {
		this.containerCheckInterval = interval;
		return self();
	}

	/**
	 * How many empty container nodes the server removes per minute at most
	 * ({@code znode.container.maxPerMinute}, 10,000 by default).
	 * @param maxPerMinute the limit
	 * @return this builder
	 */
	public B containerSweepsPerMinute(int maxPerMinute) {
		this.containerSweepsPerMinute = maxPerMinute;
		return self();
	}

	/**
	 * An extra {@code zoo.cfg} setting. In a server in the test JVM, settings that
	 * ZooKeeper does not know become {@code zookeeper.*} system properties of the whole
	 * JVM.
	 * @param key the key
	 * @param value the value
	 * @return this builder
	 */
	public B setting(String key, String value) {
		this.settings.put(key, value);
		return self();
	}

	/**
	 * The longest wait for the server to start and serve.
	 * @param startupTimeout the timeout
	 * @return this builder
	 */
	public B startupTimeout(Duration startupTimeout) {
		this.startupTimeout = startupTimeout;
		return self();
	}

	Duration startupTimeout() {
		return this.startupTimeout;
	}

	/**
	 * The server's configuration: the settings of every fixture, then the fixture's own,
	 * then the extra ones given here, which win.
	 * @param dataDirectory the data directory, as the server sees it
	 * @param clientPort the client port
	 * @param fixtureSettings the settings of this kind of fixture
	 * @return the configuration
	 */
	ZooKeeperConfig config(String dataDirectory, int clientPort, Map<String, String> fixtureSettings) {
		return ZooKeeperConfig.server(this.tickTime, dataDirectory, clientPort)
			.setAll(fixtureSettings)
			.setAll(this.settings);
	}

	// ZooKeeper reads the container sweep settings from system properties only
	Map<String, String> sweepProperties() {
		Map<String, String> properties = new HashMap<>();
		if (this.containerCheckInterval != null) {
			properties.put("znode.container.checkIntervalMs", Long.toString(this.containerCheckInterval.toMillis()));
		}
		if (this.containerSweepsPerMinute != null) {
			properties.put("znode.container.maxPerMinute", Integer.toString(this.containerSweepsPerMinute));
		}
		return Map.copyOf(properties);
	}

	/**
	 * Start a fixture, closing it when it does not start, so that no process or
	 * directory is left behind.
	 * @param <F> the fixture type
	 * @param fixture the fixture
	 * @param start how to start it
	 * @return the started fixture
	 */
	static <F extends AutoCloseable> F startOrClose(F fixture, Consumer<F> start) {
		try {
			start.accept(fixture);
		}
		catch (RuntimeException ex) {
			try {
				fixture.close();
			}
			catch (Exception closeFailure) {
				ex.addSuppressed(closeFailure);
			}
			throw ex;
		}
		return fixture;
	}

	@SuppressWarnings("unchecked")
	private B self() {
		return (B) this;
	}

}
