package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.PathUtils;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockException;
import dev.zklock.LockLossReason;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

/**
 * The one non-blocking lock engine behind {@link CuratorLockManager} and its
 * {@link AsyncLockManager} view: where locks live, how an {@link Acquisition}
 * starts and how its {@link Hold}s are released, the {@link LockRegistry} of every
 * hold and wait, and the {@link ConnectionLossHandler} that keeps them in line
 * with the connection. No thread waits in here; callers that block do so on the
 * futures it returns.
 */
final class LockEngine implements AutoCloseable {

	static final long MAX_WAIT_NANOS = Long.MAX_VALUE / 4;

	// lock lifecycle is logged under the manager users know and configure
	private static final Logger logger = LoggerFactory.getLogger(CuratorLockManager.class);

	private final CuratorFramework client;

	private final String basePath;

	private final Duration defaultTimeout;

	private final LockRegistry registry = new LockRegistry();

	private final ConnectionLossHandler lossHandler;

	private final ZooKeeperReachability reachability;

	private final ScheduledThreadPoolExecutor timer;

	private volatile LockOwnerData ownerData = LockOwnerData.json(null);

	private volatile PauseGuard pauseGuard = PauseGuard.NONE;

	// acquisitions under way, so that a shutdown can end their waits
	private final Set<Acquisition> pending = ConcurrentHashMap.newKeySet();

	private volatile boolean shuttingDown;

	// the cap of holds whose request has none; null for none
	private volatile @Nullable Duration defaultMaxHold;

	// timers that end the holds kept for their minHold; they still run after close
	private final Set<ScheduledFuture<?>> lingers = ConcurrentHashMap.newKeySet();

	private final ShutdownDrain shutdown = new ShutdownDrain(this);

	private final RevocationWatch revocationWatch = new RevocationWatch(this);

	private final LockRevoker revoker;

	LockEngine(CuratorFramework client, String basePath, Duration defaultTimeout) {
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.basePath = normalizeBasePath(basePath);
		Objects.requireNonNull(defaultTimeout, "defaultTimeout must not be null");
		if (defaultTimeout.isNegative()) {
			throw new IllegalArgumentException(
					"zk-lock.default-timeout must not be negative, got " + defaultTimeout + "; use 0 to try once");
		}
		this.defaultTimeout = defaultTimeout;
		this.timer = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "zk-lock-timer");
			thread.setDaemon(true);
			return thread;
		});
		this.timer.setRemoveOnCancelPolicy(true);
		this.lossHandler = new ConnectionLossHandler(client, this.registry);
		this.lossHandler.start();
		this.reachability = new ZooKeeperReachability(client, this::connectionSuspended);
		// on the timer's thread: ending single tries sends background calls, never on Curator's event thread
		this.reachability.start(this.timer);
		this.revoker = new LockRevoker(client, this.basePath);
	}

	CuratorFramework client() {
		return this.client;
	}

	String basePath() {
		return this.basePath;
	}

	LockRegistry registry() {
		return this.registry;
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

	LockRevoker revoker() {
		return this.revoker;
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

	String pathFor(String name, String key) {
		String keySegment = (key != null) ? KeyEncoder.encode(key) : KeyEncoder.NO_KEY;
		return this.basePath + "/" + KeyEncoder.encode(name) + "/" + keySegment;
	}

	/**
	 * Start acquiring keys of a lock.
	 * @param name the lock name
	 * @param mode the mode
	 * @param permits the permits, for SEMAPHORE
	 * @param targets the keys, in the order to lock them
	 * @param timeout the longest wait, {@code null} for the default, 0 to try once
	 * @param owner the thread that will own the holds, {@code null} for none
	 * @return the started acquisition
	 */
	Acquisition acquire(String name, LockMode mode, int permits, List<Acquisition.Target> targets,
			@Nullable Duration timeout, @Nullable Thread owner) {
		Duration wait = (timeout != null) ? timeout : this.defaultTimeout;
		long nanos = (wait.compareTo(Duration.ofNanos(MAX_WAIT_NANOS)) >= 0) ? MAX_WAIT_NANOS : wait.toNanos();
		Acquisition acquisition = new Acquisition(this, name, mode, permits, targets, owner, nanos);
		this.pending.add(acquisition);
		acquisition.result().whenComplete((holds, ex) -> this.pending.remove(acquisition));
		acquisition.start();
		// a shutdown that began meanwhile may not have seen it among the pending ones
		if (this.shuttingDown) {
			acquisition.shutDown();
		}
		return acquisition;
	}

	NodeAttempt newAttempt(Acquisition.Target target, LockMode mode, int permits, byte @Nullable [] data,
			boolean tryOnce) {
		return switch (mode) {
			case MUTEX -> new QueueAttempt(this.client, target.path(), QueueRule.MUTEX, data, tryOnce, null, 0, 1);
			case READ -> new QueueAttempt(this.client, target.path(), QueueRule.READ, data, tryOnce,
					target.writerNode(), target.writerSession(), 1);
			case WRITE -> new QueueAttempt(this.client, target.path(), QueueRule.WRITE, data, tryOnce, null, 0, 1);
			case SEMAPHORE -> new QueueAttempt(this.client, target.path(), QueueRule.SEMAPHORE, data, tryOnce, null, 0,
					permits);
		};
	}

	/**
	 * Release holds, the last taken first. Every hold is released; a release that
	 * ZooKeeper does not confirm is confirmed later by the loss handler.
	 * @param holds the holds
	 * @return completes once every release is confirmed, else exceptionally with a
	 * {@link LockException} (the locks are no longer held by this process either way)
	 */
	CompletableFuture<Void> release(List<Hold> holds) {
		if (holds.isEmpty()) {
			return CompletableFuture.completedFuture(null);
		}
		List<CompletableFuture<Void>> releases = new ArrayList<>(holds.size());
		for (int i = holds.size() - 1; i >= 0; i--) {
			releases.add(release(holds.get(i)));
		}
		if (releases.size() == 1) {
			return releases.get(0);
		}
		CompletableFuture<Void> all = new CompletableFuture<>();
		CompletableFuture.allOf(releases.toArray(new CompletableFuture<?>[0])).whenComplete((ignored, ex) -> {
			@Nullable LockException failure = null;
			for (CompletableFuture<Void> release : releases) {
				Throwable cause = release.handle((v, t) -> t).join();
				if (cause != null && failure == null) {
					failure = (LockException) unwrap(cause);
				}
				else if (cause != null && failure != null) {
					failure.addSuppressed(unwrap(cause));
				}
			}
			if (failure != null) {
				all.completeExceptionally(failure);
			}
			else {
				all.complete(null);
			}
		});
		return all;
	}

	private CompletableFuture<Void> release(Hold hold) {
		LockRegistry.Entry entry = hold.entry();
		entry.cancelCap();
		MinHold minHold = entry.minHold();
		if (minHold != null && linger(hold, minHold)) {
			// the work is done; the node stays until the shortest hold has passed
			return CompletableFuture.completedFuture(null);
		}
		return releaseNow(hold);
	}

	/**
	 * Keep a key its work released before its shortest hold had passed, and delete
	 * its node once it has, on this process's monotonic clock.
	 * @return whether it lingers; if not, it is to be released now
	 */
	private boolean linger(Hold hold, MinHold minHold) {
		LockRegistry.Entry entry = hold.entry();
		long remaining = minHold.remainingNanos();
		if (remaining <= 0 || !this.registry.linger(entry, minHold)) {
			return false;
		}
		ScheduledFuture<?> timer = schedule(() -> endLinger(hold), remaining, TimeUnit.NANOSECONDS);
		if (timer == null) {
			// the engine is closed: no timer to end it later, so it ends now
			return false;
		}
		this.lingers.add(timer);
		minHold.ended().whenComplete((ignored, ex) -> this.lingers.remove(timer));
		if (logger.isDebugEnabled()) {
			logger.debug("Keeping lock '{}' key '{}' for another {} ms of its minHold", entry.name(),
					KeyEncoder.abbreviate(entry.key()), TimeUnit.NANOSECONDS.toMillis(remaining));
		}
		return true;
	}

	// The shortest hold has passed: the node goes, through the usual release and its confirmation
	private void endLinger(Hold hold) {
		LockRegistry.Entry entry = hold.entry();
		if (entry.isRemoved()) {
			// lost with its session meanwhile, or given up
			return;
		}
		if (this.client.getState() != CuratorFrameworkState.STARTED) {
			// the client closed, and its session with it: the node went then
			logger.debug("Lock '{}' key '{}' ended with the session of the closed client", entry.name(),
					KeyEncoder.abbreviate(entry.key()));
			this.registry.remove(entry);
			return;
		}
		releaseNow(hold).whenComplete((ignored, ex) -> {
			// a failure is logged and confirmed later by the release path itself
		});
		MinHold minHold = entry.minHold();
		if (minHold != null) {
			// no longer held by this process, as for a release whose work waits for it
			minHold.end();
		}
	}

	private CompletableFuture<Void> releaseNow(Hold hold) {
		LockRegistry.Entry entry = hold.entry();
		if (entry.isAbandoned()) {
			// taken away, its node deleted already: the loss was announced then
			this.registry.remove(entry);
			return CompletableFuture.completedFuture(null);
		}
		// a lost lock went with its session: nothing to confirm
		boolean sessionGone = this.registry.transition(entry, LockRegistry.Entry.OWNED, LockState.RELEASING) == null;
		return hold.attempt().release().handle((ignored, ex) -> {
			if (ex == null || sessionGone) {
				this.registry.remove(entry);
			}
			else {
				this.registry.unconfirmed(entry);
				this.lossHandler.releaseFailed();
			}
			if (ex == null) {
				if (logger.isDebugEnabled()) {
					logger.debug("Released lock '{}' key '{}' ({})", entry.name(), KeyEncoder.abbreviate(entry.key()),
							entry.mode());
				}
				return null;
			}
			Throwable cause = unwrap(ex);
			String key = KeyEncoder.abbreviate(entry.key());
			logger.error("Could not release lock '{}' key '{}' ({} mode) at {}; this process no longer holds it, and "
					+ "Curator deletes the node in the background or ZooKeeper when the session ends", entry.name(),
					key, entry.mode(), entry.node().path(), cause);
			throw new CompletionException(new LockException("Could not release lock '" + entry.name() + "' key '" + key
					+ "' at " + entry.node().path() + ": " + cause + "; the lock is no longer held by this process "
					+ "and its node is deleted in the background, " + advice(cause), cause));
		});
	}

	@Nullable ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
		try {
			return this.timer.schedule(task, delay, unit);
		}
		catch (RejectedExecutionException ex) {
			// closed: the wait is not cut short, as a closed manager takes no new locks
			logger.debug("Lock manager closed; not timing a wait", ex);
			return null;
		}
	}

	ShutdownDrain shutdown() {
		return this.shutdown;
	}

	void setDefaultMaxHold(@Nullable Duration maxHold) {
		if (maxHold != null && (maxHold.isNegative() || maxHold.isZero())) {
			throw new IllegalArgumentException("zk-lock.max-hold must be positive, got " + maxHold);
		}
		this.defaultMaxHold = maxHold;
	}

	/**
	 * Arm the cap of holds just handed to their holder: when one is still held after
	 * {@code maxHold} (or the default), it is taken away.
	 * @param holds the holds
	 * @param maxHold the request's cap, or {@code null} for the default
	 */
	void capHolds(List<Hold> holds, @Nullable Duration maxHold) {
		Duration cap = (maxHold != null) ? maxHold : this.defaultMaxHold;
		if (cap == null || cap.compareTo(Duration.ofNanos(MAX_WAIT_NANOS)) >= 0) {
			// none, or too long to ever run out
			return;
		}
		for (Hold hold : holds) {
			LockRegistry.Entry entry = hold.entry();
			ScheduledFuture<?> timer = schedule(() -> takeAway(entry, LockLossReason.MAX_HOLD_EXCEEDED), cap.toNanos(),
					TimeUnit.NANOSECONDS);
			if (timer != null) {
				entry.capTimer(timer);
			}
		}
	}

	/**
	 * Keep holds just handed to their holder at least {@code minHold} from now: a
	 * release that comes sooner leaves the node until then.
	 * @param holds the holds
	 * @param minHold the shortest hold, or {@code null} for none
	 */
	void holdAtLeast(List<Hold> holds, @Nullable Duration minHold) {
		if (minHold == null || minHold.isZero()) {
			return;
		}
		long granted = System.nanoTime();
		long nanos = (minHold.compareTo(Duration.ofNanos(MAX_WAIT_NANOS)) >= 0) ? MAX_WAIT_NANOS : minHold.toNanos();
		for (Hold hold : holds) {
			hold.entry().minHold(new MinHold(granted, nanos));
		}
	}

	/**
	 * Refuse a request whose shortest hold is longer than the default cap that
	 * applies to it.
	 */
	void checkHoldBounds(LockRequest request) {
		Duration minHold = request.minHold();
		if (minHold == null) {
			return;
		}
		Duration cap = this.defaultMaxHold;
		if (request.maxHold() == null && cap != null && minHold.compareTo(cap) > 0) {
			throw new IllegalArgumentException("Lock '" + request.name() + "' minHold " + minHold
					+ " is longer than zk-lock.max-hold " + cap + ", which caps it: the lock would be taken away "
					+ "before it may be released; lower minHold, or give the request a maxHold of its own");
		}
	}

	/**
	 * Watch the nodes of holds just handed to their holder, so that a revocation is
	 * seen at once ({@link RevocationWatch}).
	 * @param holds the holds
	 */
	void watchHolds(List<Hold> holds) {
		this.revocationWatch.arm(holds);
	}

	/**
	 * Take a lock away from its holder: lost and announced first, then its node
	 * deleted so that the next waiter gets it; the holder's later release does
	 * nothing. A {@link LockLossReason#REVOKED revoked} node is gone already.
	 * @return completes once the node is confirmed gone
	 */
	CompletableFuture<Void> takeAway(LockRegistry.Entry entry, LockLossReason reason) {
		if (!LockRegistry.Entry.OWNED.contains(entry.state()) || entry.isLingering()) {
			// a kept hold has no work to stop: it ends at its time or with the session
			return CompletableFuture.completedFuture(null);
		}
		// marked first: a release that comes now leaves the node to the deletion below
		entry.abandon();
		entry.cancelCap();
		this.lossHandler.takeAway(entry, reason);
		return (reason != LockLossReason.REVOKED) ? Nodes.delete(this.client, entry.node().path())
				: CompletableFuture.completedFuture(null);
	}

	/**
	 * A held node was deleted by someone else: revoked while connected, or, for a
	 * hold in doubt, found gone after the connection came back. Runs on the loss
	 * handler's thread, in line with the connection events. Our own release fires
	 * the watch too, but then the entry is no longer owned and nothing happens; a
	 * release at the same moment as a revocation either finds the entry abandoned
	 * (quiet) or leaves it releasing (nothing announced).
	 */
	void revoked(LockRegistry.Entry entry) {
		if (entry.state() == LockState.IN_DOUBT) {
			this.lossHandler.nodeGone(entry);
		}
		else if (!entry.isAbandoned()) {
			takeAway(entry, LockLossReason.REVOKED);
		}
	}

	/**
	 * Take no new locks, and end the waits under way.
	 */
	void stopTakingLocks() {
		this.shuttingDown = true;
		for (Acquisition acquisition : this.pending) {
			acquisition.shutDown();
		}
	}

	/**
	 * Whether the engine takes no new locks, the application shutting down.
	 */
	boolean isShuttingDown() {
		return this.shuttingDown;
	}

	/**
	 * Refuse a new acquisition once the application shuts down.
	 */
	void checkTakingLocks(String name) {
		if (this.shuttingDown) {
			throw new LockException("Cannot acquire lock '" + name + "': the application is shutting down, so "
					+ "zk-lock takes no new locks and ends the waits under way. Run the call again on an instance "
					+ "that is not stopping");
		}
	}

	void checkStarted(String name) {
		CuratorFrameworkState state = this.client.getState();
		if (state != CuratorFrameworkState.STARTED) {
			throw new LockException("Cannot acquire lock '" + name + "': the Curator client is " + state
					+ ", not STARTED; start it before taking locks");
		}
	}

	// What to check for a ZooKeeper failure: only a connection problem points at the connection
	String advice(Throwable ex) {
		for (Throwable current = ex; current != null; current = current.getCause()) {
			if (current instanceof KeeperException keeperException) {
				return FailureAdvice.forCode(keeperException.code(), keeperException.getPath(), this.basePath);
			}
		}
		return FailureAdvice.forCode(null, null, this.basePath);
	}

	/**
	 * Stop listening to the client and stop the timer. Locks still held stay held
	 * until released or until the client closes; a lock kept for its minHold still
	 * ends at its time if the client is still open (one shared with the
	 * application), or with the client's session.
	 */
	@Override
	public void close() {
		this.pauseGuard.close();
		this.lossHandler.close();
		this.reachability.close();
		for (Runnable task : this.timer.getQueue()) {
			if (!this.lingers.contains(task) && task instanceof Future<?> future) {
				future.cancel(false);
			}
		}
		// delayed tasks still queued, the lingering ones, run at their time
		this.timer.shutdown();
	}

	static Throwable unwrap(Throwable ex) {
		Throwable current = ex;
		while ((current instanceof CompletionException || current instanceof ExecutionException)
				&& current.getCause() != null) {
			current = current.getCause();
		}
		return current;
	}

	static String normalizeBasePath(String basePath) {
		if (basePath == null || basePath.isBlank()) {
			throw new IllegalArgumentException("zk-lock.base-path must not be blank; use a node such as /locks");
		}
		String path = basePath.trim();
		while (path.length() > 1 && path.endsWith("/")) {
			path = path.substring(0, path.length() - 1);
		}
		try {
			PathUtils.validatePath(path);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"zk-lock.base-path '" + basePath + "' is not a valid ZooKeeper path: " + ex.getMessage(), ex);
		}
		if (path.equals("/")) {
			throw new IllegalArgumentException(
					"zk-lock.base-path must not be the root '/'; use a dedicated node such as /locks");
		}
		if (path.equals("/zookeeper") || path.startsWith("/zookeeper/")) {
			throw new IllegalArgumentException("zk-lock.base-path '" + basePath
					+ "' lies in ZooKeeper's reserved /zookeeper tree; use a dedicated node such as /locks");
		}
		return path;
	}

}
