package dev.zklock.leader;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;

/**
 * Joins the roles' queues when the application starts and gives every role up
 * early on shutdown, before locks are drained and the ZooKeeper client closes, so
 * that the next candidate leads within a round trip instead of a session timeout.
 */
public class LeadershipLifecycle
		implements SmartLifecycle, ApplicationListener<ContextClosedEvent>, ApplicationContextAware {

	/**
	 * The phase: stopped before the lock drain and the client.
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);

	private final CuratorLeaderElection election;

	private @Nullable ApplicationContext context;

	/**
	 * Create a new lifecycle.
	 * @param election the election to start and stop
	 */
	public LeadershipLifecycle(CuratorLeaderElection election) {
		this.election = election;
	}

	@Override
	public void setApplicationContext(ApplicationContext context) {
		this.context = context;
	}

	// The first sign of this context closing, when the engine stops taking locks; not a child's
	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		if (event.getApplicationContext() == this.context) {
			this.election.beginShutdown();
		}
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
