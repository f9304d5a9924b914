package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import org.apache.curator.CuratorZookeeperClient;
import org.apache.curator.framework.CuratorFramework;

import dev.zklock.LockContextHolder;
import dev.zklock.LockDeadlock;
import dev.zklock.LockDeadlockListener;
import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockLossListener;
import dev.zklock.LockManager;
import dev.zklock.LockOwnerData;
import dev.zklock.LockRequest;
import dev.zklock.LockRevocation;
import dev.zklock.LockRevocationException;
import dev.zklock.LockRevocationListener;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.LockRegistry.Hold;

/**
 * The {@link LockManager} on zk-lock's one non-blocking engine, for every mode:
 * the blocking API is a thin wait on the engine's future, and {@link #async} is
 * the asynchronous view of the same engine, registry and loss handling.
 * <p>
 * A lock lives at {@code <basePath>/<name>/<key>}, each part encoded by
 * {@link LockPaths} into one safe path segment; a request without keys uses the
 * reserved segment {@link LockPaths#NO_KEY}. MUTEX, READ and WRITE follow the
 * protocols of Curator's {@code InterProcessMutex} and
 * {@code InterProcessReadWriteLock}, so Curator's recipes and zk-lock exclude each
 * other. SEMAPHORE has its own protocol: its lease nodes are its queue, which
 * costs three operations per uncontended cycle; it does not exclude Curator's
 * {@code InterProcessSemaphoreV2}. Each waiter watches one node (the first
 * SEMAPHORE waiter, the queue), so a release wakes a bounded number of waiters. Parent nodes are containers that ZooKeeper removes
 * once empty. MUTEX, READ/WRITE and SEMAPHORE on the same name and key are
 * independent locks: use one family per name.
 * <p>
 * Every handle has a fencing token: the creation zxid of the holder's node (the
 * lease, for SEMAPHORE), from the create response. Each node stores
 * {@link LockOwnerData}. An acquired handle is the thread's
 * {@link dev.zklock.LockContext} until closed. Nested acquisitions of the same
 * path by the same thread re-enter it without a second node and release at the
 * outermost close. Several keys are locked in sorted order, all or nothing,
 * within one timeout. A waiting thread parks (never inside a monitor), so a
 * virtual thread does not pin its carrier. Close the manager to stop listening to
 * the client.
 * <p>
 * The file reads in this order: setup (owner data, listeners, limits), the
 * asynchronous view and shutdown, then the blocking path: {@link #acquire} (the
 * thread's slots, then one acquisition for the keys it does not hold yet), the
 * park on that acquisition, and the release with its bounded wait for ZooKeeper's
 * answer.
 */
public final class CuratorLockManager implements LockManager, AutoCloseable {

	private final LockEngine engine;

	// Entries a HashMap of default capacity takes before it grows
	private static final int SMALL_MAP_SLOTS = 12;

	// Curator's default session timeout, for a client that has not connected yet
	private static final int DEFAULT_SESSION_MILLIS = 60_000;

	private final ThreadLocal<Map<LockSlot.Key, LockSlot>> threadSlots = new ThreadLocal<>();

	private final LocalHandoffs localHandoffs;

	// how holds end, and the client whose timeouts bound a release: a release needs no more of the engine
	private final HoldRelease releases;

	private final CuratorFramework client;

	// The view of async(null), made on first use: one pool per manager, closed with it
	private final AtomicReference<@Nullable AsyncLockManager> sharedAsync = new AtomicReference<>();

	/**
	 * Create a new manager, which starts listening to the client's connection state
	 * at once.
	 * @param client the Curator client; it must be started before locks are taken
	 * @param basePath the path under which every lock node is created, such as
	 * {@code /locks}; neither the root nor ZooKeeper's own {@code /zookeeper}
	 * @param defaultTimeout the wait used by requests without a timeout
	 */
	public CuratorLockManager(CuratorFramework client, String basePath, Duration defaultTimeout) {
		this.engine = new LockEngine(client, basePath, defaultTimeout);
		this.localHandoffs = new LocalHandoffs(this.engine.cohorts());
		this.releases = this.engine.releases();
		this.client = client;
	}

	/**
	 * Set the data stored in each lock node, synchronous or asynchronous; by default
	 * JSON with host, pid and thread ({@link LockOwnerData#json(String)}).
	 * @param ownerData the owner data; {@link LockOwnerData#none()} for the client's
	 * default data
	 */
	public void setOwnerData(LockOwnerData ownerData) {
		this.engine.setOwnerData(ownerData);
	}

	/**
	 * Set whether a thread whose lock is lost is interrupted, so that blocking work
	 * in the critical section stops. A lock in doubt is not interrupted: it may be
	 * held again. Asynchronous locks belong to no thread.
	 * @param interruptOnLoss whether to interrupt
	 */
	public void setInterruptOnLoss(boolean interruptOnLoss) {
		this.engine.losses().setInterruptOnLoss(interruptOnLoss);
	}

	/**
	 * Make holds notice that this process went silent: with a detector, a held lock
	 * is in doubt while the process has been silent for more than a quarter of the
	 * negotiated session timeout, or after such a pause until one fresh ZooKeeper
	 * round trip confirms it. The detector is not closed with this manager.
	 * @param detector a started detector, or {@code null} to trust the connection
	 * alone
	 */
	public void setPauseDetector(@Nullable PauseDetector detector) {
		this.engine.setPauseDetector(detector);
	}

	/**
	 * Set how this manager and its asynchronous views look for deadlocks among the
	 * waits of every instance; {@link DeadlockDetectionSettings#DEFAULTS} until set.
	 * A wait shorter than {@link DeadlockDetectionSettings#after()} costs nothing.
	 * @param settings the settings
	 */
	public void setDeadlockDetection(DeadlockDetectionSettings settings) {
		this.engine.setDeadlockDetection(settings);
	}

	/**
	 * How this manager and its asynchronous views look for deadlocks.
	 * @return the settings last set, {@link DeadlockDetectionSettings#DEFAULTS} until
	 * then
	 */
	public DeadlockDetectionSettings getDeadlockDetection() {
		return this.engine.deadlockDetection();
	}

	/**
	 * Cap how long a lock may be held when its request sets no {@code maxHold}: a hold
	 * still there after it is taken away, synchronous or asynchronous, as
	 * {@link LockRequest.Builder#maxHold(Duration)} describes.
	 * @param maxHold the cap, positive, or {@code null} for none (the default)
	 */
	public void setDefaultMaxHold(@Nullable Duration maxHold) {
		this.engine.holdTimers().setDefaultMaxHold(maxHold);
	}

	/**
	 * Bound the tenures of locks with local hand-off
	 * ({@link LockRequest.Builder#localHandoff(boolean)}): once another process
	 * waits, a tenure ends after this many local passes or this long since its grant,
	 * whichever comes first.
	 * @param maxPasses the passes, 0 for none (every holder through ZooKeeper once
	 * another process waits)
	 * @param maxTime the time, not negative
	 */
	public void setLocalHandoffLimits(int maxPasses, Duration maxTime) {
		this.engine.cohorts().setLimits(maxPasses, maxTime);
	}

	/**
	 * The local hand-off of this manager and its asynchronous views: tenures and
	 * counts.
	 * @return the view
	 */
	public LocalHandoffs getLocalHandoffs() {
		return this.localHandoffs;
	}

	/**
	 * Add a listener told about every lost lock, synchronous or asynchronous.
	 * @param listener the listener
	 */
	public void addLockLossListener(LockLossListener listener) {
		this.engine.losses().addListener(Objects.requireNonNull(listener, "listener must not be null"));
	}

	/**
	 * Add a listener told about every deadlock this manager and its asynchronous
	 * views ended by failing one of their waits.
	 * @param listener the listener
	 */
	public void addLockDeadlockListener(LockDeadlockListener listener) {
		this.engine.deadlockAnnouncer().addListener(Objects.requireNonNull(listener, "listener must not be null"));
	}

	/**
	 * The last deadlocks this manager and its asynchronous views ended, newest first,
	 * as many as {@link DeadlockDetectionSettings#history()}.
	 * @return the deadlocks
	 */
	public List<LockDeadlock> getDeadlocks() {
		return this.engine.deadlockAnnouncer().history();
	}

	/**
	 * Add a listener told about every lock this manager revokes.
	 * @param listener the listener
	 */
	public void addLockRevocationListener(LockRevocationListener listener) {
		this.engine.revoker().addListener(Objects.requireNonNull(listener, "listener must not be null"));
	}

	/**
	 * Revoke a lock, in whatever process it is held: delete the nodes of the current
	 * holders of one key (for READ and SEMAPHORE, every holder; or only the one
	 * named), all in one ZooKeeper transaction, each only if unchanged since read.
	 * The next waiter gets the lock with a higher fencing token; a holder that is
	 * connected learns it at once ({@link dev.zklock.LockLossReason#REVOKED}).
	 * Every revocation is logged at WARN and told to the
	 * {@link LockRevocationListener}s.
	 * @param name the lock name
	 * @param key the key, or {@code null} for a lock without keys
	 * @param node the name of the one holder node to remove, or {@code null} for
	 * every current holder
	 * @param principal who asks, for the log and the listeners, or {@code null}
	 * @return what was removed
	 * @throws LockRevocationException when nothing was removed: the lock, key or
	 * node was not found, the holders changed meanwhile, or ZooKeeper is not
	 * reachable
	 */
	public LockRevocation revoke(String name, @Nullable String key, @Nullable String node,
			@Nullable String principal) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("The name of the lock to revoke must not be blank");
		}
		return this.engine.revoker().revoke(name, key, node, principal);
	}

	/**
	 * The asynchronous view of this manager: the same engine, registry and loss
	 * handling, for work that does not run on one thread.
	 * <p>
	 * Without an executor, every call returns the same view, created on first use
	 * with a pool of daemon threads named {@code zk-lock-async-N}; that pool stops
	 * when this manager closes, and closing the view leaves it running for the
	 * view's other users. With an executor, each call returns a new view on it,
	 * which the caller closes.
	 * @param executor runs what follows an acquisition or a release; {@code null}
	 * for the shared view and its pool
	 * @return the view; closing it leaves this manager open
	 */
	public AsyncLockManager async(@Nullable Executor executor) {
		if (executor != null) {
			return new AsyncLockManager(this.engine, false, executor);
		}
		AsyncLockManager shared = this.sharedAsync.get();
		if (shared == null) {
			AsyncLockManager created = new AsyncLockManager(this.engine, false, null, true);
			AsyncLockManager raced = this.sharedAsync.compareAndExchange(null, created);
			if (raced != null) {
				created.closeExecutor();
			}
			shared = (raced != null) ? raced : created;
		}
		if (this.engine.isClosed()) {
			// created as the manager closed: its pool must not outlive it
			shared.closeExecutor();
		}
		return shared;
	}

	/**
	 * Begin the shutdown of the engine, blocking and asynchronous alike: no new lock
	 * is taken (a thread may still re-enter a lock it holds), and every wait under
	 * way ends with a {@link LockException}, its node deleted. Held locks stay held.
	 */
	public void beginShutdown() {
		this.engine.shutdown().begin();
	}

	/**
	 * Let the engine's holds in flight finish before the client closes: after
	 * {@link #beginShutdown()}, wait up to the timeout for every lock to be released.
	 * A lock still held then is given up: lost with
	 * {@link dev.zklock.LockLossReason#SHUTDOWN}, announced to the
	 * {@link LockLossListener}s (its thread interrupted if so configured), and its
	 * node deleted, in that order; its later release does nothing.
	 * @param timeout the longest wait for the holds in flight
	 * @return the number of locks given up
	 */
	public int drain(Duration timeout) {
		return this.engine.shutdown().drain(Objects.requireNonNull(timeout, "timeout must not be null"));
	}

	/**
	 * Stop listening to the client's connection state, end the waits under way, and
	 * stop the pool of the shared asynchronous view ({@link #async(Executor)
	 * async(null)}). Locks still held stay held until released or until the client
	 * closes.
	 */
	@Override
	public void close() {
		this.engine.close();
		AsyncLockManager shared = this.sharedAsync.get();
		if (shared != null) {
			shared.closeExecutor();
		}
	}

	/**
	 * The path under which every lock node is created.
	 * @return the base path
	 */
	public String getBasePath() {
		return this.engine.basePath();
	}

	/**
	 * The locks this manager currently holds and awaits, synchronously and
	 * asynchronously.
	 * @return the registry, read-only
	 */
	public LockRegistry getRegistry() {
		return this.engine.registry();
	}

	/**
	 * Whether ZooKeeper answers this manager's client, and since when not: what the
	 * {@code locks} endpoint and the health indicator report instead of waiting for
	 * ZooKeeper.
	 * @return the reachability
	 */
	public ZooKeeperReachability getReachability() {
		return this.engine.reachability();
	}

	// ---- The blocking path: each thread's slots, the wait, and the release

	HoldTimers holdTimers() {
		return this.engine.holdTimers();
	}

	/**
	 * The ZooKeeper path of a lock.
	 * @param name the lock name
	 * @param key the key, or {@code null} for a lock without keys
	 * @return the path, always a direct grandchild of the base path
	 */
	public String pathFor(String name, String key) {
		return this.engine.pathFor(name, key);
	}

	@Override
	public LockHandle acquire(LockRequest request) {
		Objects.requireNonNull(request, "request must not be null");
		List<String> keys = LockEngine.sortedKeys(request);
		String name = request.name();
		LockMode mode = request.mode();
		if (Thread.currentThread().isInterrupted()) {
			throw new LockException("Thread '" + Thread.currentThread().getName()
					+ "' was interrupted before acquiring lock '" + name + "' " + describe(keys)
					+ "; the interrupt flag is kept and nothing was created in ZooKeeper");
		}
		this.engine.checkStarted(name);
		List<String> lockKeys = LockEngine.lockKeys(keys);
		Map<LockSlot.Key, LockSlot> slots = slots();
		LockSlot.Key[] slotKeys = new LockSlot.Key[lockKeys.size()];
		List<Acquisition.Target> targets = new ArrayList<>(lockKeys.size());
		List<LockSlot.Key> targetSlots = new ArrayList<>(lockKeys.size());
		for (int i = 0; i < slotKeys.length; i++) {
			String path = this.engine.pathFor(name, lockKeys.get(i));
			slotKeys[i] = LockSlot.Key.of(path, mode);
			LockSlot slot = slots.get(slotKeys[i]);
			if (mode == LockMode.WRITE) {
				rejectUpgrade(slot, name, lockKeys.get(i));
			}
			if (slot == null || slot.count(mode) == 0) {
				Hold writer = ownedWrite(slot, mode);
				targets.add(new Acquisition.Target(lockKeys.get(i), path, (writer != null) ? writer.nodePath() : null,
						(writer != null) ? writer.entry().node().session() : 0));
				targetSlots.add(slotKeys[i]);
			}
		}
		if (!targets.isEmpty()) {
			this.engine.checkCanAcquire(request);
			List<Hold> taken = awaitAcquisition(this.engine.acquire(name, mode, request.permits(), targets,
					request.timeout(), Thread.currentThread(), request.usesLocalHandoff()), name, mode);
			if (taken == null) {
				return new CuratorLockHandle(this, name, keys, mode, List.of(), List.of(), false);
			}
			this.engine.handOver(taken, request);
			for (int i = 0; i < taken.size(); i++) {
				slots.computeIfAbsent(targetSlots.get(i), (slotKey) -> new LockSlot()).hold(mode, taken.get(i));
			}
		}
		List<Hold> holds = new ArrayList<>(slotKeys.length);
		for (LockSlot.Key slotKey : slotKeys) {
			// every slot was entered or created above
			LockSlot slot = Objects.requireNonNull(slots.get(slotKey));
			slot.enter(mode);
			holds.add(Objects.requireNonNull(slot.hold(mode)));
		}
		CuratorLockHandle handle = new CuratorLockHandle(this, name, keys, mode, List.copyOf(holds),
				List.of(slotKeys), true);
		LockContextHolder.push(handle);
		return handle;
	}

	/**
	 * Park on the acquisition (its blocker) until it completes: never inside a
	 * monitor, so a virtual thread leaves its carrier free. An interrupt abandons the
	 * acquisition and keeps the flag. The park ends once on the way at the wait's
	 * deadlock detection mark, which the acquisition is told of.
	 * @return the holds, or {@code null} when the timeout elapsed
	 * @throws LockException when it failed, or the thread was interrupted (its nodes
	 * are removed by then and the interrupt flag is set)
	 */
	private List<Hold> awaitAcquisition(Acquisition acquisition, String name, LockMode mode) {
		CompletableFuture<List<Hold>> result = acquisition.result();
		if (!result.isDone()) {
			Thread waiter = Thread.currentThread();
			result.whenComplete((holds, ex) -> LockSupport.unpark(waiter));
			boolean timed = acquisition.isTimed();
			while (!result.isDone()) {
				if (Thread.interrupted()) {
					throw interrupted(acquisition, name, mode);
				}
				long now = System.nanoTime();
				long toMark = acquisition.nanosUntilMark(now);
				long remaining = acquisition.deadline() - now;
				if (timed && remaining <= 0) {
					// out of time: give up and wait, whatever interrupts come, until the nodes are gone
					acquisition.timeOut();
					return ignoringAcquisitionInterrupts(result, name, mode);
				}
				if (toMark <= 0) {
					acquisition.waitPassed();
				}
				else if (!timed || toMark < remaining) {
					parkAtMost(acquisition, toMark);
				}
				else {
					LockSupport.parkNanos(acquisition, remaining);
				}
			}
		}
		try {
			return result.join();
		}
		catch (RuntimeException ex) {
			Throwable cause = LockEngine.unwrap(ex);
			throw (cause instanceof LockException lockException) ? lockException : new LockException(
					"Could not acquire lock '" + name + "' in " + mode + " mode: " + cause, cause);
		}
	}

	// Park for a time, or for good when there is none
	private static void parkAtMost(Acquisition acquisition, long nanos) {
		if (nanos == Long.MAX_VALUE) {
			LockSupport.park(acquisition);
		}
		else {
			LockSupport.parkNanos(acquisition, nanos);
		}
	}

	private static List<Hold> ignoringAcquisitionInterrupts(CompletableFuture<List<Hold>> result, String name,
			LockMode mode) {
		try {
			return ignoringInterrupts(result);
		}
		catch (LockException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new LockException("Could not acquire lock '" + name + "' in " + mode + " mode: " + ex, ex);
		}
	}

	private LockException interrupted(Acquisition acquisition, String name, LockMode mode) {
		LockException failure = new LockException("Interrupted while waiting for lock '" + name + "' key '"
				+ LockPaths.abbreviate(acquisition.currentKey()) + "' in " + mode + " mode; its node was removed and "
				+ "the interrupt flag is kept", new InterruptedException());
		try {
			acquisition.cancel();
			List<Hold> won = ignoringInterrupts(acquisition.result());
			// every key was taken just before the interrupt: give them back
			ignoringInterrupts(this.releases.release(won));
		}
		catch (CancellationException ex) {
			// abandoned, and its nodes are gone
		}
		catch (Exception ex) {
			failure.addSuppressed(ex);
		}
		finally {
			Thread.currentThread().interrupt();
		}
		return failure;
	}

	/**
	 * Wait for a future that ZooKeeper or Curator completes in bounded time; an
	 * interrupt does not end the wait, and the interrupt flag is kept.
	 * @return the future's value
	 * @throws Exception what the future failed with
	 */
	private static <T> T ignoringInterrupts(CompletableFuture<T> future) throws Exception {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return future.get();
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (ExecutionException ex) {
					Throwable cause = LockEngine.unwrap(ex);
					if (cause instanceof Error error) {
						throw error;
					}
					throw (cause instanceof Exception exception) ? exception : ex;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Leave the slots of one handle, innermost first, and release in ZooKeeper what
	 * was entered outermost. Every hold is released; local state is cleared even
	 * when ZooKeeper fails, and an interrupt does not stop the release,
	 * nor the wait for its confirmation, which is bounded ({@link #awaitRelease}).
	 * @throws LockException when a release failed in ZooKeeper
	 */
	void release(LockMode mode, List<LockSlot.Key> slotKeys) {
		Map<LockSlot.Key, LockSlot> slots = this.threadSlots.get();
		List<Hold> toRelease = new ArrayList<>(slotKeys.size());
		for (int i = slotKeys.size() - 1; i >= 0; i--) {
			LockSlot slot = (slots != null) ? slots.get(slotKeys.get(i)) : null;
			if (slot == null) {
				continue;
			}
			Hold hold = slot.exit(mode);
			if (hold != null) {
				toRelease.add(0, hold);
			}
			if (slot.isEmpty()) {
				slots.remove(slotKeys.get(i));
			}
		}
		if (slots != null && slotKeys.size() > SMALL_MAP_SLOTS && slots.isEmpty()) {
			// a map that grew for many keys is dropped, so an idle thread keeps only a small one
			this.threadSlots.remove();
		}
		if (toRelease.isEmpty()) {
			return;
		}
		CompletableFuture<Void> released = this.releases.release(toRelease);
		// a local pass or a confirmed delete is done here and needs no wait; the description names the holds only
		// when the wait fails, so that a release that ZooKeeper confirms builds no string (#40)
		if (!released.isDone() || released.isCompletedExceptionally()) {
			awaitRelease(() -> describeHolds(toRelease), released, releaseBound());
		}
	}

	/**
	 * Wait for a release to be confirmed, whatever interrupts come (the interrupt
	 * flag is kept), but not past a bound: a release that ZooKeeper neither confirms
	 * nor fails by then is left to finish in the background, as a failed one is.
	 * @param lock the lock and its keys, quoted, as an error names them; asked only
	 * when the release fails
	 * @param released the release
	 * @param bound the longest wait
	 * @throws LockException when the release failed or was not confirmed in time
	 */
	static void awaitRelease(Supplier<String> lock, CompletableFuture<Void> released, Duration bound) {
		// a timed wait, not a timer on a copy of the future: such a timer costs every release that waits a task
		// scheduled on, and cancelled from, the JDK's delay thread (#40)
		long deadline = System.nanoTime() + bound.toNanos();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					released.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
					return;
				}
				catch (InterruptedException ex) {
					// the release is under way in ZooKeeper: its answer is worth the rest of the wait
					interrupted = true;
				}
				catch (TimeoutException | ExecutionException ex) {
					if (released.isDone() && !released.isCompletedExceptionally()) {
						// confirmed just as the bound passed
						return;
					}
					throw releaseFailure(lock, released, bound, ex);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static LockException releaseFailure(Supplier<String> describe, CompletableFuture<Void> released,
			Duration bound, Exception ex) {
		// not done means the bound passed: ex is the TimeoutException
		String lock = describe.get();
		if (!released.isDone()) {
			return new LockException("The release of lock " + lock + " was not confirmed by ZooKeeper within "
					+ bound + "; the lock is no longer held by this process, and its nodes are deleted in the "
					+ "background or when the session ends. Check the ZooKeeper connection", ex);
		}
		Throwable failure = released.handle((ignored, t) -> t).join();
		Throwable cause = LockEngine.unwrap((failure != null) ? failure : ex);
		return (cause instanceof LockException lockException) ? lockException
				: new LockException("Could not release lock " + lock + ": " + cause, cause);
	}

	// The lock and its keys as the other errors of this class name them
	private static String describeHolds(List<Hold> holds) {
		List<String> keys = holds.stream().map((hold) -> hold.entry().key()).filter(Objects::nonNull).distinct().toList();
		return "'" + holds.get(0).entry().name() + "' " + describe(keys);
	}

	// Past a session and a connection timeout, ZooKeeper has deleted the nodes anyway, or Curator gave up on them
	private Duration releaseBound() {
		CuratorZookeeperClient zookeeper = this.client.getZookeeperClient();
		int sessionMillis = zookeeper.getLastNegotiatedSessionTimeoutMs();
		return Duration.ofMillis(((sessionMillis > 0) ? sessionMillis : DEFAULT_SESSION_MILLIS)
				+ (long) zookeeper.getConnectionTimeoutMs());
	}

	// For a READ, the WRITE this thread holds on the same path, unless lost: a lost WRITE vouches for nothing
	private static @Nullable Hold ownedWrite(@Nullable LockSlot slot, LockMode mode) {
		Hold write = (mode == LockMode.READ && slot != null) ? slot.hold(LockMode.WRITE) : null;
		return (write != null && LockRegistry.Entry.OWNED.contains(write.entry().state())) ? write : null;
	}

	// A thread keeps its map, empty when idle: a plain HashMap pins no class of ours in pooled threads
	private Map<LockSlot.Key, LockSlot> slots() {
		Map<LockSlot.Key, LockSlot> slots = this.threadSlots.get();
		if (slots == null) {
			slots = new HashMap<>();
			this.threadSlots.set(slots);
		}
		return slots;
	}

	private static void rejectUpgrade(@Nullable LockSlot slot, String name, @Nullable String key) {
		if (slot != null && slot.count(LockMode.READ) > 0 && slot.count(LockMode.WRITE) == 0) {
			throw new LockException("Lock '" + name + "' key '" + LockPaths.abbreviate(key)
					+ "' is held in READ mode by this thread, which now asks for WRITE: upgrading a read lock would "
					+ "wait forever. Take the WRITE lock first (a WRITE holder may also take READ), or release the "
					+ "READ lock before asking for WRITE");
		}
	}

	private static String describe(List<String> keys) {
		if (keys.isEmpty()) {
			return "(no key)";
		}
		List<String> shown = new ArrayList<>(keys.size());
		for (String key : keys) {
			shown.add(LockPaths.abbreviate(key));
		}
		return "keys " + shown;
	}

}
