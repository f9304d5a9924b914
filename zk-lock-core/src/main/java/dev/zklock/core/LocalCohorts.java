package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

import dev.zklock.LocalTenure;
import dev.zklock.LockLossReason;
import dev.zklock.LockOwnerData;
import dev.zklock.LockState;
import dev.zklock.annotation.LockMode;

/**
 * The engine's {@link LocalCohort}s, one per lock path and mode with local
 * waiters or a tenure, made on demand and dropped when idle; the bounds of a
 * tenure once another process waits; and the count of grants passed locally and
 * granted through ZooKeeper.
 */
final class LocalCohorts {

	/** Passes per tenure once another process waits, unless configured. */
	static final int DEFAULT_MAX_PASSES = 16;

	/** How long a tenure passes once another process waits, unless configured. */
	static final Duration DEFAULT_MAX_TIME = Duration.ofMillis(50);

	private final CuratorFramework client;

	private final EngineTimer timer;

	private final Supplier<LockOwnerData> ownerData;

	private final Supplier<PauseGuard> pauseGuard;

	private final HoldRelease releases;

	private final LossAnnouncer losses;

	private final Map<Key, LocalCohort> cohorts = new ConcurrentHashMap<>();

	private final AtomicLong passes = new AtomicLong();

	private final AtomicLong zooKeeperGrants = new AtomicLong();

	private volatile int maxPasses = DEFAULT_MAX_PASSES;

	private volatile long maxTimeNanos = DEFAULT_MAX_TIME.toNanos();

	/**
	 * Create the cohorts of an engine.
	 * @param client the client
	 * @param timer the engine's timer, for listings asked for again
	 * @param ownerData the engine's owner data, as set now
	 * @param pauseGuard the engine's pause guard, as set now
	 * @param releases takes a hold away
	 * @param losses announces a lost hold
	 */
	LocalCohorts(CuratorFramework client, EngineTimer timer, Supplier<LockOwnerData> ownerData, Supplier<PauseGuard> pauseGuard,
			HoldRelease releases, LossAnnouncer losses) {
		this.client = client;
		this.timer = timer;
		this.ownerData = ownerData;
		this.pauseGuard = pauseGuard;
		this.releases = releases;
		this.losses = losses;
	}

	void setLimits(int maxPasses, Duration maxTime) {
		if (maxPasses < 0) {
			throw new IllegalArgumentException(
					"zk-lock.local-handoff.max-passes must not be negative, got " + maxPasses);
		}
		if (maxTime == null || maxTime.isNegative()) {
			throw new IllegalArgumentException("zk-lock.local-handoff.max-time must not be negative, got " + maxTime);
		}
		this.maxPasses = maxPasses;
		this.maxTimeNanos = maxTime.toNanos();
	}

	int maxPasses() {
		return this.maxPasses;
	}

	long maxTimeNanos() {
		return this.maxTimeNanos;
	}

	CuratorFramework client() {
		return this.client;
	}

	/**
	 * Run a task on the engine's timer, as a {@link TenureWatch} asks a failed
	 * listing again.
	 * @return {@code null} when the engine is closed
	 */
	@Nullable ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
		return this.timer.schedule(task, delay, unit);
	}

	/**
	 * An attempt that waits in this process's queue for the key and holds with the
	 * tenure's node.
	 */
	LocalAttempt attempt(Acquisition.Target target, LockMode mode, LockRegistry.Entry entry, boolean tryOnce) {
		return new LocalAttempt(this, target.path(), mode, entry, tryOnce);
	}

	void join(LocalAttempt attempt) {
		Key key = new Key(attempt.path(), attempt.mode());
		while (true) {
			LocalCohort cohort = this.cohorts.computeIfAbsent(key, (k) -> new LocalCohort(this,
					attempt.entry().name(), attempt.entry().key(), k.path(), k.mode()));
			attempt.joined(cohort);
			if (cohort.join(attempt)) {
				return;
			}
			// retired meanwhile: it has left the map, so the next look makes a new one
			this.cohorts.remove(key, cohort);
		}
	}

	void retire(LocalCohort cohort) {
		this.cohorts.remove(new Key(cohort.path(), cohort.mode()), cohort);
	}

	/**
	 * The node a tenure holds in ZooKeeper, with data that names this process rather
	 * than a thread.
	 */
	NodeAttempt newTenureAttempt(String path, LockMode mode, boolean tryOnce) {
		QueueRule rule = switch (mode) {
			case READ -> QueueRule.READ;
			case WRITE -> QueueRule.WRITE;
			default -> QueueRule.MUTEX;
		};
		return new QueueAttempt(this.client, path, rule, this.ownerData.get().forInstance(), tryOnce,
				null, 0, 1);
	}

	/**
	 * Whether a holder still holds for sure: not in doubt, not suspect after a pause.
	 */
	boolean isSound(LockRegistry.Entry entry) {
		return entry.state() == LockState.HELD && !this.pauseGuard.get().inDoubt(entry);
	}

	/**
	 * End a local holder's hold with its tenure: taken away for a take-away, lost
	 * otherwise.
	 */
	void takeAway(LockRegistry.Entry entry, LockLossReason reason) {
		if (reason == LockLossReason.MAX_HOLD_EXCEEDED || reason == LockLossReason.SHUTDOWN
				|| reason == LockLossReason.REVOKED) {
			this.releases.takeAway(entry, reason);
		}
		else {
			this.losses.lose(entry, reason);
		}
	}

	/**
	 * A thread holding WRITE placed a READ at its node: a tenure with that node ends
	 * with its holder.
	 */
	void nestedRead(String writerNode) {
		if (this.cohorts.isEmpty()) {
			return;
		}
		for (LocalCohort cohort : this.cohorts.values()) {
			if (cohort.mode() == LockMode.WRITE) {
				cohort.lastHolder(writerNode);
			}
		}
	}

	void passed(int count) {
		this.passes.addAndGet(count);
	}

	void grantedByZooKeeper() {
		this.zooKeeperGrants.incrementAndGet();
	}

	long passes() {
		return this.passes.get();
	}

	long zooKeeperGrants() {
		return this.zooKeeperGrants.get();
	}

	List<LocalTenure> snapshot() {
		List<LocalTenure> result = new ArrayList<>();
		for (LocalCohort cohort : this.cohorts.values()) {
			LocalTenure tenure = cohort.snapshot();
			if (tenure != null) {
				result.add(tenure);
			}
		}
		return result;
	}

	private record Key(String path, LockMode mode) {

	}

}
