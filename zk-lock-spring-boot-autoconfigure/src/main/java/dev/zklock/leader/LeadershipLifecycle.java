package dev.zklock.leader;

import java.time.Duration;

import org.springframework.context.SmartLifecycle;

/**
 * Joins the roles' queues when the application starts and gives every role up
 * early on shutdown, before locks are drained and the ZooKeeper client closes, so
 * that the next candidate leads within a round trip instead of a session timeout.
 */
public class LeadershipLifecycle implements SmartLifecycle {

	/**
	 * The phase: stopped before the lock drain and the client.
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);

	private final CuratorLeaderElection election;

	/**
	 * Create a new lifecycle.
	 * @param election the election to start and stop
	 */
	public LeadershipLifecycle(CuratorLeaderElection election) {
		this.election = election;
	}

	@Override
	public void start() {
		this.election.start();
	}

	@Override
	public void stop() {
		this.election.stop(STOP_TIMEOUT);
	}

	@Override
	public boolean isRunning() {
		return this.election.isRunning();
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
