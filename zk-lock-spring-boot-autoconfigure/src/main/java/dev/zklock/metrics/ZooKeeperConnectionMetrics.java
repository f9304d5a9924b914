package dev.zklock.metrics;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;

/**
 * Counts the connection state transitions of the Curator client in
 * {@code zk.lock.connection.state}, tagged {@code state} ({@code connected},
 * {@code suspended}, {@code reconnected}, {@code lost} or {@code read_only}).
 * Listens from creation until {@link #close()}.
 */
public class ZooKeeperConnectionMetrics implements ConnectionStateListener, AutoCloseable {

	/**
	 * Counter of connection state transitions.
	 */
	public static final String CONNECTION_STATE = "zk.lock.connection.state";

	private final CuratorFramework client;

	private final Map<ConnectionState, Counter> counters = new EnumMap<>(ConnectionState.class);

	/**
	 * Register the counters and start listening.
	 * @param client the client whose connection is counted
	 * @param registry where the counters are registered
	 */
	public ZooKeeperConnectionMetrics(CuratorFramework client, MeterRegistry registry) {
		this.client = client;
		for (ConnectionState state : ConnectionState.values()) {
			this.counters.put(state,
					Counter.builder(CONNECTION_STATE)
						.tag("state", state.name().toLowerCase(Locale.ROOT))
						.description("ZooKeeper connection state transitions")
						.register(registry));
		}
		client.getConnectionStateListenable().addListener(this);
	}

	@Override
	public void stateChanged(CuratorFramework client, ConnectionState newState) {
		this.counters.get(newState).increment();
	}

	/**
	 * Stop listening.
	 */
	@Override
	public void close() {
		this.client.getConnectionStateListenable().removeListener(this);
	}

}
