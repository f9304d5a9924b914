package dev.zklock.monitor;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.KeyEncoder;
import dev.zklock.core.LockEventListener;
import dev.zklock.core.LockInfo;
import dev.zklock.core.LockRegistry;
import dev.zklock.core.LockState;

/**
 * Reports every lock this process holds as lost when the Curator client's
 * connection is {@link ConnectionState#LOST LOST}: the session is then considered
 * expired, and with it the ephemeral lock nodes. Listens from creation until
 * {@link #close()}.
 */
public class SessionLossLockReporter implements ConnectionStateListener, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(SessionLossLockReporter.class);

	private final CuratorFramework client;

	private final Supplier<LockRegistry> registry;

	private final Supplier<List<LockEventListener>> listeners;

	/**
	 * Start listening to the client's connection.
	 * @param client the client
	 * @param registry supplies the registry of held locks, or {@code null} when
	 * there is none
	 * @param listeners supplies the listeners told about lost locks
	 */
	public SessionLossLockReporter(CuratorFramework client, Supplier<LockRegistry> registry,
			Supplier<List<LockEventListener>> listeners) {
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.listeners = Objects.requireNonNull(listeners, "listeners must not be null");
		client.getConnectionStateListenable().addListener(this);
	}

	@Override
	public void stateChanged(CuratorFramework client, ConnectionState newState) {
		if (newState != ConnectionState.LOST) {
			return;
		}
		LockRegistry locks = this.registry.get();
		if (locks == null) {
			return;
		}
		for (LockInfo lock : locks.snapshot()) {
			if (lock.state() != LockState.WAITING) {
				lost(lock);
			}
		}
	}

	private void lost(LockInfo lock) {
		String key = (lock.key() != null) ? KeyEncoder.abbreviate(lock.key()) : "(no key)";
		logger.warn("Lock '{}' key '{}' ({} mode) held by thread '{}' is lost: the ZooKeeper connection was lost "
				+ "and the session is considered expired, so another process may now hold it", lock.name(), key,
				lock.mode(), lock.threadName());
		for (LockEventListener listener : this.listeners.get()) {
			try {
				listener.lockLost(lock);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock event listener {} failed on lock '{}'", listener, lock.name(), ex);
			}
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
