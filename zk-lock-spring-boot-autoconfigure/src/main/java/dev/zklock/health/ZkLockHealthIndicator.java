package dev.zklock.health;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import org.apache.curator.CuratorZookeeperClient;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.LockRegistry;
import dev.zklock.LockState;

/**
 * {@link HealthIndicator} for the ZooKeeper connection that zk-lock uses. UP when
 * connected, OUT_OF_SERVICE while the connection is suspended (or read-only),
 * DOWN when it is lost, not yet established, or the client is closed. Details
 * give the connect string, the connection state, the session id in hex, the
 * negotiated session timeout and the number of locks this process holds, holds
 * in doubt (while the connection is suspended) and awaits, synchronous and
 * asynchronous ones together. While the connection is suspended or lost, a
 * {@code reason} says that ZooKeeper is unreachable, where, and since when.
 * <p>
 * Reads local state only, never waiting for ZooKeeper. The connection state comes
 * from Curator's connection state events, which the indicator listens to from
 * creation until {@link #close()}.
 */
public class ZkLockHealthIndicator implements HealthIndicator, ConnectionStateListener, AutoCloseable {

	/**
	 * Connection state reported before the first connection.
	 */
	static final String NOT_CONNECTED = "NOT_CONNECTED";

	/**
	 * Connection state reported once the client is closed.
	 */
	static final String CLOSED = "CLOSED";

	private final CuratorFramework client;

	private final Supplier<LockRegistry> registry;

	private final Supplier<AsyncLockManager> asyncLockManager;

	private volatile @Nullable ConnectionState lastState;

	// since the connection was suspended or lost; null while connected
	private volatile @Nullable Instant unreachableSince;

	private volatile SessionId sessionId = new SessionId(-1, 0);

	/**
	 * Create a new indicator and start listening to the client's connection.
	 * @param client the client
	 * @param registry supplies the registry of this process's locks, or
	 * {@code null} when there is none
	 */
	public ZkLockHealthIndicator(CuratorFramework client, Supplier<LockRegistry> registry) {
		this(client, registry, () -> null);
	}

	/**
	 * Create a new indicator that counts asynchronous locks too, and start listening
	 * to the client's connection.
	 * @param client the client
	 * @param registry supplies the registry of this process's locks, or
	 * {@code null} when there is none
	 * @param asyncLockManager supplies the asynchronous lock manager, or
	 * {@code null} when there is none
	 */
	public ZkLockHealthIndicator(CuratorFramework client, Supplier<LockRegistry> registry,
			Supplier<AsyncLockManager> asyncLockManager) {
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.asyncLockManager = Objects.requireNonNull(asyncLockManager, "asyncLockManager must not be null");
		client.getConnectionStateListenable().addListener(this);
	}

	@Override
	public void stateChanged(CuratorFramework client, ConnectionState newState) {
		if (newState.isConnected()) {
			this.unreachableSince = null;
		}
		else if (this.unreachableSince == null) {
			this.unreachableSince = Instant.now();
		}
		this.lastState = newState;
	}

	@Override
	public Health health() {
		CuratorZookeeperClient zookeeper = this.client.getZookeeperClient();
		CuratorFrameworkState clientState = this.client.getState();
		ConnectionState state = this.lastState;
		boolean connected = zookeeper.isConnected();
		Health.Builder builder;
		String stateName;
		if (clientState == CuratorFrameworkState.STOPPED) {
			builder = Health.down();
			stateName = CLOSED;
		}
		else if (clientState == CuratorFrameworkState.LATENT || (state == null && !connected)) {
			builder = Health.down();
			stateName = NOT_CONNECTED;
		}
		else if (state == null) {
			builder = Health.up();
			stateName = ConnectionState.CONNECTED.name();
		}
		else {
			builder = switch (state) {
				case CONNECTED, RECONNECTED -> Health.up();
				case SUSPENDED, READ_ONLY -> Health.outOfService();
				case LOST -> Health.down();
			};
			stateName = state.name();
		}
		builder.withDetail("connectString", zookeeper.getCurrentConnectionString());
		builder.withDetail("connectionState", stateName);
		Instant since = this.unreachableSince;
		if (since != null && !connected) {
			builder.withDetail("reason", "ZooKeeper at " + zookeeper.getCurrentConnectionString()
					+ " is unreachable since " + since + "; locks are not acquired while it is (each acquisition "
					+ "fails by its timeout), and locks held are in doubt or lost");
		}
		if (clientState == CuratorFrameworkState.STARTED && connected) {
			long id = sessionId(zookeeper);
			if (id != 0) {
				builder.withDetail("sessionId", "0x" + Long.toHexString(id));
			}
			builder.withDetail("sessionTimeoutMillis", zookeeper.getLastNegotiatedSessionTimeoutMs());
		}
		AsyncLockManager asyncLocks = this.asyncLockManager.get();
		List<LockRegistry> registries = LockRegistry.distinct(this.registry.get(),
				(asyncLocks != null) ? asyncLocks.getRegistry() : null);
		if (!registries.isEmpty()) {
			builder.withDetail("locksHeld", count(registries, LockState.HELD));
			builder.withDetail("locksInDoubt", count(registries, LockState.IN_DOUBT));
			builder.withDetail("locksWaiting", count(registries, LockState.WAITING));
		}
		return builder.build();
	}

	private static int count(List<LockRegistry> registries, LockState state) {
		int count = 0;
		for (LockRegistry registry : registries) {
			count += registry.count(state);
		}
		return count;
	}

	// Read once per ZooKeeper handle: asking Curator for the handle also takes a
	// pending background exception meant for the next operation
	private long sessionId(CuratorZookeeperClient zookeeper) {
		long instance = zookeeper.getInstanceIndex();
		SessionId known = this.sessionId;
		if (known.instance() == instance && known.id() != 0) {
			return known.id();
		}
		try {
			long id = zookeeper.getZooKeeper().getSessionId();
			this.sessionId = new SessionId(instance, id);
			return id;
		}
		catch (Exception ex) {
			return 0;
		}
	}

	/**
	 * Stop listening to the client's connection.
	 */
	@Override
	public void close() {
		this.client.getConnectionStateListenable().removeListener(this);
	}

	private record SessionId(long instance, long id) {

	}

}
