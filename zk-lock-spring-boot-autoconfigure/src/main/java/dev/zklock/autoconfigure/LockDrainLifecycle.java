package dev.zklock.autoconfigure;

import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.BeansException;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;

import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.LockRegistry;
import dev.zklock.LockState;

/**
 * Drains zk-lock's locks when the application context closes, before the client
 * closes. As soon as the context begins to close, no new lock is taken and the
 * waits under way end (their nodes deleted). Late in the shutdown, after the
 * executors, schedulers and the web server have stopped in earlier phases, it
 * waits up to {@code spring.lifecycle.timeout-per-shutdown-phase} for the holds in
 * flight to be released, whichever thread runs their work and however the
 * executors are set to await termination; then it gives up what is still held,
 * announcing each loss with reason {@code SHUTDOWN}. Client beans are closed only
 * after every lifecycle has stopped, so never under a hold. A stop that is not part
 * of a close (such as the pause of a cached test context) leaves the locks alone.
 */
final class LockDrainLifecycle implements SmartLifecycle, ApplicationListener<ContextClosedEvent>,
		ApplicationContextAware {

	/**
	 * The phase of the drain: stopped after Boot's executors and schedulers
	 * ({@link SmartLifecycle#DEFAULT_PHASE}) and its web server (graceful shutdown
	 * and stop, 1024 and 2048 below), so their work has had its chance to end.
	 */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final Logger logger = LoggerFactory.getLogger(LockDrainLifecycle.class);

	private final Supplier<CuratorLockManager> lockManager;

	private final Supplier<AsyncLockManager> asyncLockManager;

	private final Duration timeout;

	private @Nullable ApplicationContext context;

	private volatile boolean running;

	// set when this context begins to close; a stop without it (a paused test context) drains nothing
	private volatile boolean closing;

	LockDrainLifecycle(Supplier<CuratorLockManager> lockManager,
			Supplier<AsyncLockManager> asyncLockManager, Duration timeout) {
		this.lockManager = lockManager;
		this.asyncLockManager = asyncLockManager;
		this.timeout = timeout;
	}

	@Override
	public void setApplicationContext(ApplicationContext context) throws BeansException {
		this.context = context;
	}

	// The first sign of a closing context, before any lifecycle stops: waits end now, not after the executors
	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		if (event.getApplicationContext() != this.context) {
			return;
		}
		this.closing = true;
		@Nullable CuratorLockManager manager = this.lockManager.get();
		if (manager != null) {
			manager.beginShutdown();
		}
		@Nullable AsyncLockManager async = this.asyncLockManager.get();
		if (async != null) {
			async.beginShutdown();
		}
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		if (!this.closing) {
			// stopped but not closing, as Spring's test framework pauses a cached context: the locks stay in use
			return;
		}
		long deadline = System.nanoTime() + this.timeout.toNanos();
		int held = held();
		if (held > 0) {
			logger.info("Waiting up to {} for {} lock(s) still held to be released before the ZooKeeper client "
					+ "closes (spring.lifecycle.timeout-per-shutdown-phase)", this.timeout, held);
		}
		int givenUp = 0;
		@Nullable CuratorLockManager manager = this.lockManager.get();
		if (manager != null) {
			givenUp += manager.drain(remaining(deadline));
		}
		@Nullable AsyncLockManager async = this.asyncLockManager.get();
		if (async != null) {
			// the view of the same engine finds it drained already
			givenUp += async.drain(remaining(deadline));
		}
		if (givenUp > 0) {
			logger.warn("Gave up {} lock(s) at shutdown whose work did not end within {}", givenUp, this.timeout);
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	private int held() {
		@Nullable CuratorLockManager manager = this.lockManager.get();
		@Nullable AsyncLockManager async = this.asyncLockManager.get();
		int held = 0;
		for (LockRegistry registry : LockRegistry.distinct((manager != null) ? manager.getRegistry() : null,
				(async != null) ? async.getRegistry() : null)) {
			held += (int) registry.snapshot()
				.stream()
				.filter((lock) -> lock.state() != LockState.RELEASING && !lock.methodFinished())
				.count();
		}
		return held;
	}

	private static Duration remaining(long deadline) {
		return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
	}

}
