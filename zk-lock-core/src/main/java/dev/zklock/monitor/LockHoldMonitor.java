package dev.zklock.monitor;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.annotation.LockMode;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.LockPaths;
import dev.zklock.LockInfo;
import dev.zklock.core.LockRegistry;
import dev.zklock.LockState;
import dev.zklock.LongHoldListener;

/**
 * Checks a {@link LockRegistry}, and the holds of an {@link AsyncLockManager},
 * periodically for locks held longer than a threshold. Each such hold is logged
 * once, at WARN level with its name, key and thread ({@code async} for an
 * asynchronous hold), and reported to the {@link LongHoldListener}s. Held and
 * in-doubt locks are checked. The check reads local state only, on one daemon
 * thread, a few times per threshold.
 */
public class LockHoldMonitor implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(LockHoldMonitor.class);

	private static final long MIN_INTERVAL_MILLIS = 50;

	private static final long MAX_INTERVAL_MILLIS = 5_000;

	private final Supplier<LockRegistry> registry;

	private final Supplier<AsyncLockManager> asyncLocks;

	private final @Nullable Duration threshold;

	private final Supplier<List<LongHoldListener>> listeners;

	private final Set<Hold> warned = new HashSet<>();

	private @Nullable ScheduledExecutorService executor;

	/**
	 * Create a new monitor of synchronous locks only; {@link #start()} starts it.
	 * @param registry supplies the registry to check, or {@code null} when there is
	 * none
	 * @param threshold how long a lock may be held before it is reported, or
	 * {@code null} to check nothing
	 * @param listeners supplies the listeners told about long holds
	 */
	public LockHoldMonitor(Supplier<LockRegistry> registry, @Nullable Duration threshold,
			Supplier<List<LongHoldListener>> listeners) {
		this(registry, () -> null, threshold, listeners);
	}

	/**
	 * Create a new monitor; {@link #start()} starts it.
	 * @param registry supplies the registry to check, or {@code null} when there is
	 * none
	 * @param asyncLocks supplies the asynchronous lock manager whose holds to check,
	 * or {@code null} when there is none
	 * @param threshold how long a lock may be held before it is reported, or
	 * {@code null} to check nothing
	 * @param listeners supplies the listeners told about long holds
	 */
	public LockHoldMonitor(Supplier<LockRegistry> registry, Supplier<AsyncLockManager> asyncLocks,
			@Nullable Duration threshold, Supplier<List<LongHoldListener>> listeners) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.asyncLocks = Objects.requireNonNull(asyncLocks, "asyncLocks must not be null");
		this.threshold = threshold;
		if (threshold != null && (threshold.isNegative() || threshold.isZero())) {
			throw new IllegalArgumentException("zk-lock.hold-warning must be positive, got " + threshold);
		}
		this.listeners = Objects.requireNonNull(listeners, "listeners must not be null");
	}

	/**
	 * Start checking.
	 */
	public synchronized void start() {
		if (this.executor != null || this.threshold == null) {
			return;
		}
		this.executor = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "zk-lock-hold-monitor");
			thread.setDaemon(true);
			return thread;
		});
		long interval = Math.min(Math.max(this.threshold.toMillis() / 4, MIN_INTERVAL_MILLIS), MAX_INTERVAL_MILLIS);
		this.executor.scheduleWithFixedDelay(this::check, interval, interval, TimeUnit.MILLISECONDS);
	}

	/**
	 * Stop checking.
	 */
	@Override
	public synchronized void close() {
		if (this.executor != null) {
			this.executor.shutdownNow();
			this.executor = null;
		}
	}

	/**
	 * Check every hold once; runs on the monitor's thread, and in tests on theirs.
	 */
	synchronized void check() {
		Duration threshold = this.threshold;
		if (threshold == null) {
			return;
		}
		try {
			long now = System.currentTimeMillis();
			Set<Hold> current = new HashSet<>();
			AsyncLockManager asyncManager = this.asyncLocks.get();
			for (LockRegistry locks : LockRegistry.distinct(this.registry.get(),
					(asyncManager != null) ? asyncManager.getRegistry() : null)) {
				check(locks.snapshot(), threshold, now, current);
			}
			this.warned.retainAll(current);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not check for locks held longer than zk-lock.hold-warning ({})", this.threshold, ex);
		}
	}

	private void check(List<LockInfo> locks, Duration threshold, long now, Set<Hold> current) {
		long thresholdMillis = threshold.toMillis();
		for (LockInfo lock : locks) {
			if ((lock.state() != LockState.HELD && lock.state() != LockState.IN_DOUBT) || lock.methodFinished()) {
				// a lock kept for its minHold has no work left to look at
				continue;
			}
			Hold hold = new Hold(lock.path(), lock.mode(), lock.threadName(), lock.threadId(),
					lock.since().toEpochMilli());
			current.add(hold);
			long heldMillis = now - hold.sinceMillis();
			if (heldMillis >= thresholdMillis && this.warned.add(hold)) {
				report(lock, heldMillis, threshold);
			}
		}
	}

	private void report(LockInfo lock, long heldMillis, Duration threshold) {
		String key = (lock.key() != null) ? LockPaths.abbreviate(lock.key()) : "(no key)";
		logger.warn("Lock '{}' key '{}' ({} mode) has been held by thread '{}' for {} ms, longer than "
				+ "zk-lock.hold-warning ({}); check what that thread is doing, or raise zk-lock.hold-warning",
				lock.name(), key, lock.mode(), lock.threadName(), heldMillis, threshold);
		for (LongHoldListener listener : this.listeners.get()) {
			try {
				listener.heldTooLong(lock, threshold);
			}
			catch (RuntimeException ex) {
				logger.warn("Long hold listener {} failed on lock '{}'", listener, lock.name(), ex);
			}
		}
	}

	/**
	 * Identifies one hold across checks; asynchronous holds have thread name
	 * {@code async} and thread id 0.
	 */
	private record Hold(String path, LockMode mode, String threadName, long threadId, long sinceMillis) {

	}

}
