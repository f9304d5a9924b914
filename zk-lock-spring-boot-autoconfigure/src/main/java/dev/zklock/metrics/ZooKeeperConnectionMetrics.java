package dev.zklock.metrics;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the connection state transitions of the Curator client in
 * {@code zk.lock.connection.state}, tagged {@code state} ({@code connected},
 * {@code suspended}, {@code reconnected}, {@code lost} or {@code read_only}).
 * Listens from creation until {@link #close()}. A failing meter registry is logged
 * and otherwise ignored.
 */
public class ZooKeeperConnectionMetrics implements ConnectionStateListener, AutoCloseable {

	/**
	 * Counter of connection state transitions.
	 */
	public static final String CONNECTION_STATE = "zk.lock.connection.state";

	private static final Logger logger = LoggerFactory.getLogger(ZooKeeperConnectionMetrics.class);

	private final CuratorFramework client;

	private final MeterRegistry registry;

	private final Map<ConnectionState, Counter> counters = new ConcurrentHashMap<>();

	/**
	 * Register a counter per state and start listening.
	 * @param client the client whose connection is counted
	 * @param registry where the counters are registered
	 */
	public ZooKeeperConnectionMetrics(CuratorFramework client, MeterRegistry registry) {
		this.client = client;
		this.registry = registry;
		for (ConnectionState state : ConnectionState.values()) {
			counter(state);
		}
		client.getConnectionStateListenable().addListener(this);
	}

	@Override
	public void stateChanged(CuratorFramework client, ConnectionState newState) {
		Counter counter = counter(newState);
		if (counter != null) {
			counter.increment();
		}
	}

	private @Nullable Counter counter(ConnectionState state) {
		Counter counter = this.counters.get(state);
		if (counter != null) {
			return counter;
		}
		try {
			counter = Counter.builder(CONNECTION_STATE)
				.tag("state", state.name().toLowerCase(Locale.ROOT))
				.description("ZooKeeper connection state transitions")
				.register(this.registry);
			this.counters.put(state, counter);
			return counter;
		}
		catch (RuntimeException ex) {
			logger.warn("Could not register meter {} for state {}", CONNECTION_STATE, state, ex);
			return null;
		}
	}

	/**
	 * Stop listening.
	 */
	@Override
	public void close() {
		this.client.getConnectionStateListenable().removeListener(this);
	}

}
