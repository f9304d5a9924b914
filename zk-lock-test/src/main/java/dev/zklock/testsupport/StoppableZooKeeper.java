package dev.zklock.testsupport;

import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;

/**
 * An {@link InJvmZooKeeper} preset for tests that stop and restart the server on the
 * same port: a short tick time so that sessions may be as short as one second, and
 * its data in a tmpfs where there is one ({@link InJvmZooKeeper.Builder#inMemory()}).
 */
public final class StoppableZooKeeper implements AutoCloseable {

	/**
	 * Tick time of the server; sessions may range from 2 to 20 ticks.
	 */
	public static final int TICK_TIME_MILLIS = 500;

	private final InJvmZooKeeper server;

	private StoppableZooKeeper(InJvmZooKeeper server) {
		this.server = server;
	}

	/**
	 * Start a server on a free port.
	 * @return the running server
	 */
	public static StoppableZooKeeper start() {
		return new StoppableZooKeeper(
				InJvmZooKeeper.builder().tickTime(Duration.ofMillis(TICK_TIME_MILLIS)).inMemory().start());
	}

	public String connectString() {
		return this.server.connectString();
	}

	/**
	 * Stop the server, keeping its port and data.
	 */
	public void stop() {
		this.server.stop();
	}

	/**
	 * Start the stopped server again on the same port.
	 */
	public void restart() {
		this.server.start();
	}

	/**
	 * A started client with the given session timeout, connected.
	 * @param sessionTimeoutMillis the session timeout to ask for
	 * @return the client
	 */
	public CuratorFramework newClient(int sessionTimeoutMillis) {
		return ClientConnections.started(CuratorFrameworkFactory.builder()
			.connectString(connectString())
			.sessionTimeoutMs(sessionTimeoutMillis)
			.connectionTimeoutMs(1_000)
			.retryPolicy(new RetryNTimes(Integer.MAX_VALUE, 100))
			.build(), Duration.ofSeconds(10));
	}

	@Override
	public void close() {
		this.server.close();
	}

}
