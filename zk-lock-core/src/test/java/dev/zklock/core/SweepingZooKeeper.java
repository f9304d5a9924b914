package dev.zklock.core;

import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.testsupport.InJvmZooKeeper;

/**
 * An in-JVM server whose container sweep runs every 100 ms without a limit, so that
 * tests can wait for it to remove the empty parents of released locks, and a client
 * connected to it.
 */
final class SweepingZooKeeper implements AutoCloseable {

	private final InJvmZooKeeper server;

	private final CuratorFramework client;

	private SweepingZooKeeper(InJvmZooKeeper server, CuratorFramework client) {
		this.server = server;
		this.client = client;
	}

	static SweepingZooKeeper start() {
		InJvmZooKeeper server = InJvmZooKeeper.builder()
			.containerCheckInterval(Duration.ofMillis(100))
			.containerSweepsPerMinute(1_000_000)
			.start();
		try {
			return new SweepingZooKeeper(server, ZooKeeperTestSupport.startClient(server.connectString()));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			server.close();
			throw new IllegalStateException("Interrupted while connecting to " + server, ex);
		}
	}

	CuratorFramework client() {
		return this.client;
	}

	@Override
	public void close() {
		this.client.close();
		this.server.close();
	}

}
