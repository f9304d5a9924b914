package dev.zklock.core;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockLossReason;

/**
 * Keeps the states in a {@link LockRegistry} in line with the Curator connection.
 * When the client's error policy counts SUSPENDED as an error (Curator's standard
 * policy), a suspension puts held locks in doubt; a lost session loses them for
 * good. On reconnection, each lock still held or in doubt is checked: same
 * session and the node still there means held; otherwise lost, as the
 * {@link LossAnnouncer} tells. Releases that failed are confirmed the same way. Runs on one thread of its own, so that
 * ZooKeeper calls and listeners never block Curator's event thread.
 */
final class ConnectionLossHandler implements ConnectionStateListener {

	private static final Logger logger = LoggerFactory.getLogger(ConnectionLossHandler.class);

	private static final Set<LockState> HELD = EnumSet.of(LockState.HELD);

	private static final Set<LockState> IN_DOUBT = EnumSet.of(LockState.IN_DOUBT);

	private static final Set<LockState> RELEASING = EnumSet.of(LockState.RELEASING);

	private final CuratorFramework client;

	private final LockRegistry registry;

	private final LossAnnouncer losses;

	private final ExecutorService executor;

	private final AtomicLong lossEpoch = new AtomicLong();

	private volatile boolean connected;

	ConnectionLossHandler(CuratorFramework client, LockRegistry registry, LossAnnouncer losses) {
		this.client = client;
		this.registry = registry;
		this.losses = losses;
		this.executor = Executors.newSingleThreadExecutor((task) -> {
			Thread thread = new Thread(task, "zk-lock-connection");
			thread.setDaemon(true);
			return thread;
		});
	}

	void start() {
		this.client.getConnectionStateListenable().addListener(this, this.executor);
		this.connected = this.client.getZookeeperClient().isConnected();
	}

	void close() {
		this.client.getConnectionStateListenable().removeListener(this);
		this.executor.shutdownNow();
	}

	/**
	 * The number of session losses seen so far, recorded by an acquisition before it
	 * starts.
	 */
	long lossEpoch() {
		return this.lossEpoch.get();
	}

	@Override
	public void stateChanged(CuratorFramework client, ConnectionState newState) {
		switch (newState) {
			case SUSPENDED -> suspended();
			case LOST -> lost();
			case RECONNECTED -> reconnected();
			case CONNECTED -> this.connected = true;
			default -> {
			}
		}
	}

	/**
	 * A lock was just acquired: catch up with connection events that arrived while
	 * it was being acquired.
	 * @param entry the entry, just marked held
	 */
	void acquired(RegistryEntry entry) {
		if (entry.epoch() != this.lossEpoch.get() && !isCurrentSession(entry.node())) {
			lose(entry, LockLossReason.SESSION_LOST);
			return;
		}
		if (!this.connected && suspensionIsError()) {
			this.registry.transition(entry, HELD, LockState.IN_DOUBT);
		}
	}

	/**
	 * A release failed: confirm it now if the client is connected, else on
	 * reconnection or session loss.
	 */
	void releaseFailed() {
		try {
			this.executor.execute(() -> {
				if (this.client.getZookeeperClient().isConnected()) {
					confirmReleases(currentSession());
				}
			});
		}
		catch (RejectedExecutionException ex) {
			logger.debug("Lock manager closed; not confirming a failed release");
		}
	}

	/**
	 * Run a task on the handler's thread, never on the caller's: for work such as a
	 * confirmation round trip that must not slow down a lock check.
	 * @param task the task
	 * @return whether it was accepted (not after close)
	 */
	boolean execute(Runnable task) {
		try {
			this.executor.execute(task);
			return true;
		}
		catch (RejectedExecutionException ex) {
			return false;
		}
	}

	/**
	 * A check after a pause found the node gone, or no longer ours.
	 * @param entry the entry, held until now
	 */
	void nodeGone(RegistryEntry entry) {
		lose(entry, LockLossReason.NODE_DELETED);
	}

	private void suspended() {
		this.connected = false;
		if (!suspensionIsError()) {
			return;
		}
		for (RegistryEntry entry : this.registry.entries(HELD)) {
			if (this.registry.transition(entry, HELD, LockState.IN_DOUBT) == null) {
				continue;
			}
			if (entry.isLingering()) {
				// its work is done: nothing to warn about
				logger.debug("ZooKeeper connection suspended: lock '{}' key '{}', kept for its minHold after its work "
						+ "finished, is in doubt", entry.name(), KeyEncoder.abbreviate(entry.key()));
			}
			else {
				logger.warn("ZooKeeper connection suspended: lock '{}' key '{}' held by thread '{}' is in doubt until "
						+ "the client reconnects with the same session", entry.name(),
						KeyEncoder.abbreviate(entry.key()), entry.threadName());
			}
		}
	}

	private void lost() {
		this.connected = false;
		this.lossEpoch.incrementAndGet();
		for (RegistryEntry entry : this.registry.entries(RegistryEntry.OWNED)) {
			lose(entry, LockLossReason.SESSION_LOST);
		}
		for (RegistryEntry entry : this.registry.entries(RELEASING)) {
			// the node went with the session
			this.registry.remove(entry);
		}
	}

	private void reconnected() {
		this.connected = true;
		long session = currentSession();
		if (session == 0) {
			return;
		}
		for (RegistryEntry entry : this.registry.entries(RegistryEntry.OWNED)) {
			LockNode node = entry.node();
			if (node.session() != session) {
				lose(entry, LockLossReason.SESSION_CHANGED);
				continue;
			}
			Stat stat;
			try {
				stat = this.client.checkExists().forPath(node.path());
			}
			catch (Exception ex) {
				logger.debug("Could not check lock node {} after reconnecting; checking again on the next "
						+ "reconnection", node.path(), ex);
				return;
			}
			if (stat == null || stat.getEphemeralOwner() != session || stat.getCzxid() != node.czxid()) {
				lose(entry, LockLossReason.NODE_DELETED);
			}
			else if (this.registry.transition(entry, IN_DOUBT, LockState.HELD) != null) {
				logger.info("ZooKeeper reconnected with the same session: lock '{}' key '{}' is held again by "
						+ "thread '{}'", entry.name(), KeyEncoder.abbreviate(entry.key()), entry.threadName());
			}
		}
		confirmReleases(session);
	}

	private void confirmReleases(long session) {
		for (RegistryEntry entry : this.registry.entries(RELEASING)) {
			LockNode node = entry.node();
			try {
				if (node.session() == session) {
					this.client.delete().guaranteed().forPath(node.path());
				}
			}
			catch (KeeperException.NoNodeException ex) {
				// deleted already
			}
			catch (Exception ex) {
				logger.debug("Could not confirm the release of lock node {}; trying again on the next reconnection",
						node.path(), ex);
				continue;
			}
			logger.debug("Release of lock '{}' key '{}' confirmed", entry.name(), KeyEncoder.abbreviate(entry.key()));
			this.registry.remove(entry);
		}
	}

	private void lose(RegistryEntry entry, LockLossReason reason) {
		this.losses.lose(entry, reason);
	}

	private boolean suspensionIsError() {
		return this.client.getConnectionStateErrorPolicy().isErrorState(ConnectionState.SUSPENDED);
	}

	private boolean isCurrentSession(LockNode node) {
		return node.session() == currentSession();
	}

	// 0 when it cannot be told
	private long currentSession() {
		try {
			return this.client.getZookeeperClient().getZooKeeper().getSessionId();
		}
		catch (Exception ex) {
			logger.debug("Could not read the current ZooKeeper session", ex);
			return 0;
		}
	}

}
