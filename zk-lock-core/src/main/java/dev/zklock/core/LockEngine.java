package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;

import dev.zklock.LockException;
import dev.zklock.LockOwnerData;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.LockRegistry.Hold;

/**
 * The one non-blocking lock engine behind {@link CuratorLockManager} and its
 * {@link AsyncLockManager} view: how an {@link Acquisition} starts, and the parts
 * it wires together: {@link LockPaths} (where locks live), the
 * {@link LockRegistry} of every hold and wait, {@link HoldRelease} (how holds
 * end), {@link HoldTimers} (maxHold, minHold, the revocation watch), the
 * {@link ConnectionLossHandler} and {@link LossAnnouncer} that keep the holds in
 * line with the connection, the {@link ShutdownDrain}, and the
 * {@link DeadlockDetector} that publishes the long waits. No thread waits in
 * here; callers that block do so on the futures it returns.
 */
final class LockEngine implements AutoCloseable {

	static final long MAX_WAIT_NANOS = Long.MAX_VALUE / 4;

	/**
	 * A duration in nanoseconds, {@link #MAX_WAIT_NANOS} for one too long to ever
	 * run out: it stays clear of overflow when added to {@link System#nanoTime()}.
	 */
	static long cappedNanos(Duration duration) {
		return (duration.compareTo(Duration.ofNanos(MAX_WAIT_NANOS)) >= 0) ? MAX_WAIT_NANOS : duration.toNanos();
	}

	private final CuratorFramework client;

	private final LockPaths paths;

	private final Duration defaultTimeout;

	private final LockRegistry registry = new LockRegistry();

	private final LossAnnouncer losses = new LossAnnouncer(this.registry);

	private final ConnectionLossHandler lossHandler;

	private final ZooKeeperReachability reachability;

	private final EngineTimer timer = new EngineTimer();

	private volatile LockOwnerData ownerData = LockOwnerData.json(null);

	private volatile boolean closed;

	private volatile PauseGuard pauseGuard = PauseGuard.NONE;

	// acquisitions under way, so that a shutdown can end their waits
	private final Set<Acquisition> pending = ConcurrentHashMap.newKeySet();

	private final HoldRelease releases;

	private final HoldTimers holdTimers;

	private final ShutdownDrain shutdown;

	private final LockRevoker revoker;

	private final LocalCohorts cohorts;

	private final DeadlockDetector deadlocks;

	private final DeadlockAnnouncer deadlockAnnouncer = new DeadlockAnnouncer();

	// the deadlock mark of the settings in force, handed to each acquisition as a value: a wait shorter than the mark
	// never reaches the detector
	private volatile long deadlockMarkNanos;

	private final Acquisition.Parts acquisitionParts;

	LockEngine(CuratorFramework client, String basePath, Duration defaultTimeout) {
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.paths = new LockPaths(basePath);
		Objects.requireNonNull(defaultTimeout, "defaultTimeout must not be null");
		if (defaultTimeout.isNegative()) {
			throw new IllegalArgumentException(
					"zk-lock.default-timeout must not be negative, got " + defaultTimeout + "; use 0 to try once");
		}
		this.defaultTimeout = defaultTimeout;
		this.lossHandler = new ConnectionLossHandler(client, this.registry, this.losses);
		this.lossHandler.start();
		this.reachability = new ZooKeeperReachability(client, this::connectionSuspended);
		// on the timer's thread: ending single tries sends background calls, never on Curator's event thread
		this.reachability.start(this.timer);
		this.revoker = new LockRevoker(client, this.paths);
		this.releases = new HoldRelease(client, this.registry, this.losses, this.lossHandler, this.timer,
				this.paths.basePath());
		this.holdTimers = new HoldTimers(this.timer, this.releases,
				new RevocationWatch(client, this.registry, this.timer, this.lossHandler, this.releases));
		this.shutdown = new ShutdownDrain(this.registry, this.releases, this::shutDownPending);
		this.deadlocks = new DeadlockDetector(client, this.paths.waitsPath(), this.registry, this.timer,
				this.reachability, this.deadlockAnnouncer);
		this.deadlockMarkNanos = markNanos(this.deadlocks.settings());
		this.cohorts = new LocalCohorts(client, this.timer, this::ownerData, this::pauseGuard, this.releases, this.losses);
		this.acquisitionParts = new Acquisition.Parts(this.registry, this.lossHandler, this.reachability, this.timer,
				this.releases, this::newAttempt, this.paths.basePath(), this.deadlocks);
	}

	CuratorFramework client() {
		return this.client;
	}

	String basePath() {
		return this.paths.basePath();
	}

	String pathFor(String name, String key) {
		return this.paths.pathFor(name, key);
	}

	LockRegistry registry() {
		return this.registry;
	}

	LossAnnouncer losses() {
		return this.losses;
	}

	ConnectionLossHandler lossHandler() {
		return this.lossHandler;
	}

	ZooKeeperReachability reachability() {
		return this.reachability;
	}

	// ZooKeeper became unreachable: single tries under way end now
	private void connectionSuspended() {
		for (Acquisition acquisition : this.pending) {
			acquisition.connectionSuspended();
		}
	}

	LocalCohorts cohorts() {
		return this.cohorts;
	}

	LockRevoker revoker() {
		return this.revoker;
	}

	HoldRelease releases() {
		return this.releases;
	}

	HoldTimers holdTimers() {
		return this.holdTimers;
	}

	ShutdownDrain shutdown() {
		return this.shutdown;
	}

	LockOwnerData ownerData() {
		return this.ownerData;
	}

	void setOwnerData(LockOwnerData ownerData) {
		this.ownerData = Objects.requireNonNull(ownerData, "ownerData must not be null");
	}

	PauseGuard pauseGuard() {
		return this.pauseGuard;
	}

	void setPauseDetector(@Nullable PauseDetector detector) {
		this.pauseGuard.close();
		this.pauseGuard = (detector != null) ? new PauseGuard(detector, this.client, this.lossHandler)
				: PauseGuard.NONE;
	}

	void setDeadlockDetection(DeadlockDetectionSettings settings) {
		this.deadlocks.setSettings(Objects.requireNonNull(settings, "settings must not be null"));
		this.deadlockMarkNanos = markNanos(settings);
		this.deadlockAnnouncer.setLimit(settings.history());
	}

	// How long after its start a wait is marked for deadlock detection, -1 when detection is off
	private static long markNanos(DeadlockDetectionSettings settings) {
		return settings.enabled() ? cappedNanos(settings.after()) : -1;
	}

	DeadlockDetectionSettings deadlockDetection() {
		return this.deadlocks.settings();
	}

	DeadlockAnnouncer deadlockAnnouncer() {
		return this.deadlockAnnouncer;
	}

	/**
	 * Start acquiring keys of a lock.
	 * @param name the lock name
	 * @param mode the mode
	 * @param permits the permits, for SEMAPHORE
	 * @param targets the keys, in the order to lock them
	 * @param timeout the longest wait, {@code null} for the default, 0 to try once
	 * @param owner the thread that will own the holds, {@code null} for none
	 * @param localHandoff whether the one key waits in this process's queue
	 * ({@link LocalCohort})
	 * @return the started acquisition
	 */
	Acquisition acquire(String name, LockMode mode, int permits, List<Acquisition.Target> targets,
			@Nullable Duration timeout, @Nullable Thread owner, boolean localHandoff) {
		return acquire(name, mode, permits, targets, timeout, owner, localHandoff, this.ownerData.forCurrentThread());
	}

	private Acquisition acquire(String name, LockMode mode, int permits, List<Acquisition.Target> targets,
			@Nullable Duration timeout, @Nullable Thread owner, boolean localHandoff, byte @Nullable [] ownerData) {
		checkOpen(name);
		Duration wait = (timeout != null) ? timeout : this.defaultTimeout;
		long nanos = cappedNanos(wait);
		return start(new Acquisition(this.acquisitionParts, this.pauseGuard, ownerData, name, mode, permits, targets,
				owner, nanos, this.deadlockMarkNanos, localHandoff));
	}

	private Acquisition start(Acquisition acquisition) {
		this.pending.add(acquisition);
		acquisition.result().whenComplete((holds, ex) -> this.pending.remove(acquisition));
		try {
			acquisition.start();
		}
		catch (RuntimeException ex) {
			// whatever it sent is taken back: the caller learns of the failure, ZooKeeper keeps no node
			acquisition.cancel();
			throw ex;
		}
		// a shutdown or close that began meanwhile may not have seen it among the pending ones
		if (this.shutdown.isShuttingDown() || this.closed) {
			acquisition.shutDown();
		}
		return acquisition;
	}

	/**
	 * Start acquiring keys of a lock, as {@link #acquire} does, for a caller on
	 * another thread: the nodes store the owner data that caller computed, not that
	 * of the thread starting the acquisition.
	 * @param callerOwnerData what {@link LockOwnerData#forCurrentThread()} gave on the
	 * caller's thread
	 * @return the started acquisition
	 */
	Acquisition acquireFor(byte @Nullable [] callerOwnerData, String name, LockMode mode, int permits,
			List<Acquisition.Target> targets, @Nullable Duration timeout, boolean localHandoff) {
		return acquire(name, mode, permits, targets, timeout, null, localHandoff, callerOwnerData);
	}

	// The attempt of one key: a place in this process's queue with local hand-off, else a node in the key's queue
	private NodeAttempt newAttempt(Acquisition.Target target, LockMode mode, int permits, byte @Nullable [] data,
			LockRegistry.Entry entry, boolean tryOnce, boolean localHandoff) {
		if (localHandoff) {
			return this.cohorts.attempt(target, mode, entry, tryOnce);
		}
		return switch (mode) {
			case MUTEX -> new QueueAttempt(this.client, target.path(), QueueRule.MUTEX, data, tryOnce, null, 0, 1);
			case READ -> readAttempt(target, data, tryOnce);
			case WRITE -> new QueueAttempt(this.client, target.path(), QueueRule.WRITE, data, tryOnce, null, 0, 1);
			case SEMAPHORE -> new QueueAttempt(this.client, target.path(), QueueRule.SEMAPHORE, data, tryOnce, null, 0,
					permits);
		};
	}

	private NodeAttempt readAttempt(Acquisition.Target target, byte @Nullable [] data, boolean tryOnce) {
		String writerNode = target.writerNode();
		if (writerNode != null) {
			// a READ at a tenure's node: that tenure must not pass on beside it
			this.cohorts.nestedRead(writerNode);
		}
		return new QueueAttempt(this.client, target.path(), QueueRule.READ, data, tryOnce, writerNode,
				target.writerSession(), 1);
	}

	/**
	 * End the waits under way, the application shutting down.
	 */
	private void shutDownPending() {
		for (Acquisition acquisition : this.pending) {
			acquisition.shutDown();
		}
	}

	/**
	 * Refuse a new acquisition once the engine is closed: it no longer follows the
	 * connection, so it could not keep a lock safe, nor time the wait.
	 * @param name the lock name
	 */
	void checkOpen(String name) {
		if (this.closed) {
			throw new LockException("Cannot acquire lock '" + name + "': its lock manager is closed, so it no longer "
					+ "follows the ZooKeeper connection and could not keep the lock safe. Acquire through a lock "
					+ "manager that is open");
		}
	}

	boolean isClosed() {
		return this.closed;
	}

	/**
	 * The keys of a request in the order every acquisition takes them, blocking or
	 * asynchronous: sorted, each once, so that two requests for the same keys never
	 * wait for each other in opposite orders.
	 */
	static List<String> sortedKeys(LockRequest request) {
		return (request.keys().size() < 2) ? request.keys() : List.copyOf(new TreeSet<>(request.keys()));
	}

	/**
	 * The keys to lock: the sorted keys, or the one {@code null} key of a lock
	 * without keys.
	 */
	static List<String> lockKeys(List<String> sortedKeys) {
		return sortedKeys.isEmpty() ? Collections.singletonList(null) : sortedKeys;
	}

	/**
	 * Refuse a request that cannot start now, the same for blocking and
	 * asynchronous callers: the client not started, the engine closed or shutting
	 * down, or a {@code minHold} longer than the cap that applies.
	 * @throws LockException or {@link IllegalArgumentException} for the request
	 */
	void checkCanAcquire(LockRequest request) {
		checkStarted(request.name());
		checkOpen(request.name());
		this.shutdown.checkTakingLocks(request.name());
		this.holdTimers.checkHoldBounds(request);
	}

	/**
	 * Hand holds just acquired to their holder: their {@code maxHold},
	 * {@code minHold} and revocation watch start now.
	 */
	void handOver(List<Hold> holds, LockRequest request) {
		this.holdTimers.start(holds, request);
	}

	void checkStarted(String name) {
		CuratorFrameworkState state = this.client.getState();
		if (state != CuratorFrameworkState.STARTED) {
			throw new LockException("Cannot acquire lock '" + name + "': the Curator client is " + state
					+ ", not STARTED; start it before taking locks");
		}
	}

	/**
	 * Stop listening to the client and stop the timer, and end the waits under way,
	 * as a shutdown does; no new acquisition starts. Locks still held stay held
	 * until released or until the client closes; a lock kept for its minHold still
	 * ends at its time if the client is still open (one shared with the
	 * application), or with the client's session.
	 */
	@Override
	public void close() {
		this.closed = true;
		// its timer stops below: a wait under way would never time out, nor its lock be kept safe
		shutDownPending();
		// the waits ended above deleted their records; any other goes now
		this.deadlocks.close();
		this.pauseGuard.close();
		this.lossHandler.close();
		this.reachability.close();
		// the lingering holds still end at their time
		this.timer.close(this.releases::isLinger);
	}

	static Throwable unwrap(Throwable ex) {
		Throwable current = ex;
		while ((current instanceof CompletionException || current instanceof ExecutionException)
				&& current.getCause() != null) {
			current = current.getCause();
		}
		return current;
	}

}
