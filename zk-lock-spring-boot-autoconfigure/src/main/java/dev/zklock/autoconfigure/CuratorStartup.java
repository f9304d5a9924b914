package dev.zklock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.client.ZKClientConfig;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.util.StringUtils;

/**
 * Starts the auto-configured client and waits up to {@code zk-lock.startup.wait} for
 * its first connection: fails startup, or warns and lets the client retry in the
 * background, as {@code zk-lock.startup.fail-fast} says. When the connection is late,
 * a {@link ZooKeeperTlsProbe} looks for a TLS mistake, which ends the wait at once.
 * Logs the negotiated session timeout once connected, and fails when the server is
 * older than ZooKeeper 3.5 ({@link ZooKeeperServerCheck}).
 */
final class CuratorStartup {

	private static final Logger logger = LoggerFactory.getLogger(CuratorStartup.class);

	/**
	 * How long startup waits for the first connection before it probes TLS.
	 */
	static final Duration PROBE_AFTER = Duration.ofSeconds(1);

	/**
	 * Time the TLS probe gets even when the startup wait is over.
	 */
	private static final Duration MIN_PROBE_TIME = Duration.ofSeconds(1);

	private final String connectString;

	private final ZkLockProperties properties;

	private final @Nullable ZKClientConfig clientConfig;

	/**
	 * Create a startup for one client.
	 * @param connectString the connection string the client uses
	 * @param properties the zk-lock properties
	 * @param clientConfig the client's ZooKeeper configuration, or {@code null} for
	 * ZooKeeper's default one
	 */
	CuratorStartup(String connectString, ZkLockProperties properties, @Nullable ZKClientConfig clientConfig) {
		this.connectString = connectString;
		this.properties = properties;
		this.clientConfig = clientConfig;
	}

	void start(CuratorFramework client) {
		FirstConnectionReporter reporter = new FirstConnectionReporter();
		client.getConnectionStateListenable().addListener(reporter);
		client.start();
		Duration wait = this.properties.getStartup().getWait();
		long deadline = System.nanoTime() + wait.toNanos();
		if (awaitConnection(client, min(wait, PROBE_AFTER))) {
			reporter.report(client);
			checkServer(client);
			return;
		}
		// a late first connection is often a TLS mistake that no amount of waiting fixes
		ZooKeeperTlsException tlsProblem = probeTls(max(remaining(deadline), MIN_PROBE_TIME));
		boolean connected = (tlsProblem != null) ? client.getZookeeperClient().isConnected()
				: awaitConnection(client, remaining(deadline));
		if (connected) {
			reporter.report(client);
			checkServer(client);
			return;
		}
		if (this.properties.getStartup().isFailFast()) {
			client.close();
			throw (tlsProblem != null) ? tlsProblem : new ZooKeeperNotConnectedException(this.connectString, wait,
					this.properties.getTls().isEnabled()
							|| StringUtils.hasText(this.properties.getSsl().getBundle()),
					this.properties.getAuth().getScheme());
		}
		if (tlsProblem != null) {
			logger.error("zk-lock: cannot connect to ZooKeeper at {}: {}. {} Starting anyway because "
					+ "zk-lock.startup.fail-fast=false; locks fail until this is fixed.", this.connectString,
					tlsProblem.getReason(), tlsProblem.getAction());
			return;
		}
		logger.warn("zk-lock: not connected to ZooKeeper at {} within {} (zk-lock.startup.wait); starting anyway "
				+ "because zk-lock.startup.fail-fast=false. The client keeps retrying in the background and locks "
				+ "fail until it connects.", this.connectString, ZkLockPropertiesValidator.format(wait));
	}

	// An unsupported server is no passing problem: fail whatever zk-lock.startup.fail-fast says
	private void checkServer(CuratorFramework client) {
		try {
			ZooKeeperServerCheck.check(client, this.connectString);
		}
		catch (UnsupportedZooKeeperServerException ex) {
			client.close();
			throw ex;
		}
	}

	private @Nullable ZooKeeperTlsException probeTls(Duration timeout) {
		try {
			return new ZooKeeperTlsProbe(this.connectString, this.clientConfig).probe(timeout);
		}
		catch (RuntimeException ex) {
			logger.debug("zk-lock: could not probe TLS at {}", this.connectString, ex);
			return null;
		}
	}

	private boolean awaitConnection(CuratorFramework client, Duration wait) {
		try {
			return client.blockUntilConnected((int) Math.min(wait.toMillis(), Integer.MAX_VALUE),
					TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			client.close();
			throw new IllegalStateException("zk-lock: interrupted while waiting for ZooKeeper at " + this.connectString,
					ex);
		}
	}

	private static Duration remaining(long deadline) {
		return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
	}

	private static Duration min(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
	}

	private static Duration max(Duration a, Duration b) {
		return (a.compareTo(b) >= 0) ? a : b;
	}

	/**
	 * Logs the first connection once, from the startup thread or, when the client
	 * connects later, from Curator's event thread.
	 */
	private final class FirstConnectionReporter implements ConnectionStateListener {

		private final AtomicBoolean reported = new AtomicBoolean();

		private final CountDownLatch done = new CountDownLatch(1);

		@Override
		public void stateChanged(CuratorFramework client, ConnectionState newState) {
			if (newState == ConnectionState.CONNECTED) {
				report(client);
			}
		}

		// Whoever comes second waits, so that startup goes on only once the report is logged
		void report(CuratorFramework client) {
			if (!this.reported.compareAndSet(false, true)) {
				awaitReport();
				return;
			}
			try {
				logConnection(client);
			}
			finally {
				this.done.countDown();
			}
		}

		private void awaitReport() {
			try {
				this.done.await(5, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		private void logConnection(CuratorFramework client) {
			client.getConnectionStateListenable().removeListener(this);
			int requested = (int) CuratorStartup.this.properties.getSessionTimeout().toMillis();
			int negotiated = client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
			logger.info("zk-lock: connected to ZooKeeper at {} (session timeout {}ms)", CuratorStartup.this.connectString,
					negotiated);
			if (negotiated != requested) {
				logger.warn("zk-lock: ZooKeeper at {} negotiated a session timeout of {}ms instead of the {}ms asked "
						+ "by zk-lock.session-timeout: the server clamps it to 2 to 20 times its tickTime (or to its "
						+ "minSessionTimeout/maxSessionTimeout). Set zk-lock.session-timeout within that range, or "
						+ "change the server's settings.", CuratorStartup.this.connectString, negotiated, requested);
			}
		}

	}

}
