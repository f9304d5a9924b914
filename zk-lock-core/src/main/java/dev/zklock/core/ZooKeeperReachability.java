package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.concurrent.Executor;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockConnectionException;

/**
 * Whether ZooKeeper answers this client, as Curator's connection states tell it:
 * unreachable from a SUSPENDED or LOST state until the client is connected again.
 * An acquisition asks it at its deadline, so that it ends then with a failure that
 * says why, since when and where, instead of waiting out Curator's connection
 * timeout and retries; a single try fails at once while it is unreachable.
 */
public final class ZooKeeperReachability {

	private static final Logger logger = LoggerFactory.getLogger(ZooKeeperReachability.class);

	private final CuratorFramework client;

	private final Runnable onUnreachable;

	// a listener of its own, so that stateChanged is no method of this class's
	private final ConnectionStateListener listener = (c, newState) -> stateChanged(newState);

	// 0 while reachable
	private volatile long unreachableSinceMillis;

	private volatile @Nullable ConnectionState lastState;

	// whether ZooKeeper ever answered an acquisition of this engine
	private volatile boolean answered;

	ZooKeeperReachability(CuratorFramework client, Runnable onUnreachable) {
		this.client = client;
		this.onUnreachable = onUnreachable;
	}

	void start(Executor executor) {
		this.client.getConnectionStateListenable().addListener(this.listener, executor);
	}

	void close() {
		this.client.getConnectionStateListenable().removeListener(this.listener);
	}

	private void stateChanged(ConnectionState newState) {
		this.lastState = newState;
		if (newState == ConnectionState.SUSPENDED || newState == ConnectionState.LOST) {
			if (this.unreachableSinceMillis == 0) {
				this.unreachableSinceMillis = System.currentTimeMillis();
			}
			// single tries under way end now; timed waits end by their deadline
			this.onUnreachable.run();
		}
		else if (newState.isConnected()) {
			if (this.unreachableSinceMillis != 0) {
				logger.info("ZooKeeper at {} is reachable again; acquisitions wait for it as usual", connectString());
			}
			this.unreachableSinceMillis = 0;
		}
	}

	/**
	 * ZooKeeper answered an acquisition.
	 */
	void answered() {
		this.answered = true;
	}

	/**
	 * Whether ZooKeeper ever answered an acquisition: until it has, a single try
	 * waits for its answer beyond the usual bound, as the first call of a JVM may be
	 * slow for reasons of its own.
	 * @return whether an answer came
	 */
	boolean hasAnswered() {
		return this.answered;
	}

	/**
	 * Whether the client's connection is SUSPENDED or LOST now.
	 * @return whether ZooKeeper is unreachable
	 */
	public boolean isUnreachable() {
		return this.unreachableSinceMillis != 0;
	}

	/**
	 * Since when ZooKeeper is unreachable.
	 * @return the moment the connection was suspended or lost, or {@code null} while
	 * it is reachable
	 */
	public @Nullable Instant unreachableSince() {
		long since = this.unreachableSinceMillis;
		return (since != 0) ? Instant.ofEpochMilli(since) : null;
	}

	/**
	 * The connect string the client uses.
	 * @return the connect string
	 */
	public String connectString() {
		return this.client.getZookeeperClient().getCurrentConnectionString();
	}

	/**
	 * Say why ZooKeeper does not answer, for a health status or an endpoint.
	 * @return what is unreachable, since when, and the connection state
	 */
	public String describe() {
		Instant since = unreachableSince();
		if (since == null) {
			return "ZooKeeper at " + connectString() + " is reachable";
		}
		return "ZooKeeper at " + connectString() + " is unreachable since " + since + " ("
				+ (System.currentTimeMillis() - since.toEpochMilli()) + " ms; the connection is " + this.lastState
				+ ")";
	}

	/**
	 * The failure of an acquisition that ended because ZooKeeper is unreachable.
	 * @param name the lock name
	 * @param key the key being locked, or {@code null}
	 * @param mode the mode, as the message names it
	 * @return the failure
	 */
	LockConnectionException failure(String name, @Nullable String key, String mode) {
		return new LockConnectionException("Lock '" + name + "' key '" + LockPaths.abbreviate(key) + "' was not acquired in "
				+ mode + " mode: " + describe() + ", so zk-lock ended the wait by its deadline rather than wait for "
				+ "Curator's reconnection and retries. Nothing is held; a node created meanwhile is deleted once the "
				+ "connection is back. Check that ZooKeeper runs and that zk-lock.connect-string points at it, then "
				+ "run the call again");
	}

}
