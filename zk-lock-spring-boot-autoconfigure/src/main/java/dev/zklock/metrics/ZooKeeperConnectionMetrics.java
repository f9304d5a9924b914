package dev.zklock.metrics;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
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
 * {@code suspended}, {@code reconnected}, {@code lost} or {@code read_only}) and,
 * when known, {@code client} ({@code shared} or {@code dedicated}). Listens from
 * creation until {@link #close()}. A client shared by several lock setups is counted
 * once per meter registry: only the first instance for that client and registry
 * listens. A failing meter registry is logged and otherwise ignored.
 */
public class ZooKeeperConnectionMetrics implements ConnectionStateListener, AutoCloseable {

	/**
	 * Counter of connection state transitions.
	 */
	public static final String CONNECTION_STATE = "zk.lock.connection.state";

	private static final Logger logger = LoggerFactory.getLogger(ZooKeeperConnectionMetrics.class);

	private final CuratorFramework client;

	private final MeterRegistry registry;

	// Which registries already count each client, so that a shared client is counted once
	private static final Map<CuratorFramework, Set<MeterRegistry>> counted = new WeakHashMap<>();

	private final Map<ConnectionState, Counter> counters = new ConcurrentHashMap<>();

	private final @Nullable String clientMode;

	private final boolean listening;

	/**
	 * Register a counter per state and start listening.
	 * @param client the client whose connection is counted
	 * @param registry where the counters are registered
	 */
	public ZooKeeperConnectionMetrics(CuratorFramework client, MeterRegistry registry) {
		this(client, registry, null);
	}

	/**
	 * Register a counter per state, tagged with how the client is used, and start
	 * listening unless the client is already counted in this registry.
	 * @param client the client whose connection is counted
	 * @param registry where the counters are registered
	 * @param clientMode {@code shared} or {@code dedicated}, or {@code null} for no
	 * {@code client} tag
	 */
	public ZooKeeperConnectionMetrics(CuratorFramework client, MeterRegistry registry, @Nullable String clientMode) {
		this.client = client;
		this.registry = registry;
		this.clientMode = clientMode;
		for (ConnectionState state : ConnectionState.values()) {
			counter(state);
		}
		this.listening = claim(client, registry);
		if (this.listening) {
			client.getConnectionStateListenable().addListener(this);
		}
		else {
			logger.debug("Connection state of {} is already counted in {}", client, registry);
		}
	}

	private static boolean claim(CuratorFramework client, MeterRegistry registry) {
		synchronized (counted) {
			Set<MeterRegistry> registries = counted.computeIfAbsent(client,
					(key) -> Collections.newSetFromMap(new IdentityHashMap<>()));
			return registries.add(registry);
		}
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
			Counter.Builder builder = Counter.builder(CONNECTION_STATE)
				.tag("state", state.name().toLowerCase(Locale.ROOT));
			if (this.clientMode != null) {
				builder.tag("client", this.clientMode);
			}
			counter = builder
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
		if (!this.listening) {
			return;
		}
		this.client.getConnectionStateListenable().removeListener(this);
		synchronized (counted) {
			Set<MeterRegistry> registries = counted.get(this.client);
			if (registries != null && registries.remove(this.registry) && registries.isEmpty()) {
				counted.remove(this.client);
			}
		}
	}

}
