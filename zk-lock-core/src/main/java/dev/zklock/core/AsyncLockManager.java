package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockDeadlock;
import dev.zklock.LockException;
import dev.zklock.LockInfo;
import dev.zklock.LockLossListener;
import dev.zklock.LockOwnerData;
import dev.zklock.LockRequest;
import dev.zklock.LockState;
import dev.zklock.core.LockRegistry.Hold;

/**
 * The asynchronous view of zk-lock's lock engine, for work that does not run on
 * one thread: nothing blocks, and any thread may release the lock. Every mode is
 * supported (MUTEX, READ, WRITE, SEMAPHORE) and several keys are locked in sorted
 * order, all or nothing, within one timeout. Asynchronous locks are not
 * re-entrant: a second acquisition of a key this process holds asynchronously
 * waits behind the first.
 * <p>
 * A view from {@link CuratorLockManager#async} shares that manager's registry,
 * loss handling and owner data, so blocking and asynchronous holders of a lock
 * exclude each other and show up together; the constructors build a manager of
 * their own. Results are delivered on the view's executor, never on Curator's
 * event thread: one the executor refuses runs on a thread of the view's own, a
 * lock acquired for it released and the acquisition failed; a release whose
 * outcome is known at once (as on a closed manager) then completes on the
 * caller's thread.
 * {@link LockInstrumentation}s set with {@link #setInstrumentations} see every
 * acquisition through {@link LockInstrumentation#startAsync}: its
 * outcome (a cancelled acquisition is reported as failed with a
 * {@link CancellationException}) and the release of each lock acquired.
 */
public final class AsyncLockManager implements AutoCloseable {

	private final LockEngine engine;

	private final boolean ownsEngine;

	// how holds end, used directly: a release has no need of the rest of the engine
	private final HoldRelease releases;

	private final Executor executor;

	private final @Nullable ExecutorService ownExecutor;

	// the shared view of a CuratorLockManager: its pool is the manager's to close
	private final boolean sharedExecutor;

	private static final Logger logger = LoggerFactory.getLogger(AsyncLockManager.class);

	private static final long FALLBACK_KEEP_ALIVE_SECONDS = 10;

	// What the executor refused runs here unless known on the caller's thread: it may come on Curator's event
	// thread, never the place for the caller's work; it never refuses, and has no thread while idle
	private final ThreadPoolExecutor fallback;

	private volatile Instrumentations instrumentations = Instrumentations.NONE;

	/**
	 * Create a new manager with an engine of its own, delivering results on an
	 * executor of its own (a fork-join pool of daemon threads named
	 * {@code zk-lock-async-N}).
	 * @param client the Curator client; it must be started before locks are taken
	 * @param basePath the path under which every lock node is created, as for
	 * {@link CuratorLockManager}
	 * @param defaultTimeout the wait used by requests without a timeout
	 */
	public AsyncLockManager(CuratorFramework client, String basePath, Duration defaultTimeout) {
		this(client, basePath, defaultTimeout, null);
	}

	/**
	 * Create a new manager with an engine of its own.
	 * @param client the Curator client; it must be started before locks are taken
	 * @param basePath the path under which every lock node is created, as for
	 * {@link CuratorLockManager}
	 * @param defaultTimeout the wait used by requests without a timeout
	 * @param executor runs what follows an acquisition or a release (for
	 * {@code @DistributedLock}, the locked method); {@code null} for one of the
	 * manager's own
	 */
	public AsyncLockManager(CuratorFramework client, String basePath, Duration defaultTimeout,
			@Nullable Executor executor) {
		this(new LockEngine(client, basePath, defaultTimeout), true, executor);
	}

	AsyncLockManager(LockEngine engine, boolean ownsEngine, @Nullable Executor executor) {
		this(engine, ownsEngine, executor, false);
	}

	AsyncLockManager(LockEngine engine, boolean ownsEngine, @Nullable Executor executor, boolean sharedExecutor) {
		this.engine = engine;
		this.releases = engine.releases();
		this.ownsEngine = ownsEngine;
		this.sharedExecutor = sharedExecutor;
		if (executor != null) {
			this.ownExecutor = null;
			this.executor = executor;
		}
		else {
			ExecutorService own = newExecutor();
			this.ownExecutor = own;
			this.executor = own;
		}
		this.fallback = new ThreadPoolExecutor(0, 1, FALLBACK_KEEP_ALIVE_SECONDS, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), (task) -> {
					Thread thread = new Thread(task, "zk-lock-async-fallback");
					thread.setDaemon(true);
					return thread;
				});
	}

	private static ExecutorService newExecutor() {
		ForkJoinPool.ForkJoinWorkerThreadFactory factory = (pool) -> {
			ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
			thread.setName("zk-lock-async-" + thread.getPoolIndex());
			thread.setDaemon(true);
			return thread;
		};
		return new ForkJoinPool(Math.max(2, Runtime.getRuntime().availableProcessors()), factory, null, true);
	}

	/**
	 * Set the data stored in each lock node of the engine, as for
	 * {@link CuratorLockManager#setOwnerData(LockOwnerData)}.
	 * @param ownerData the owner data
	 */
	public void setOwnerData(LockOwnerData ownerData) {
		this.engine.setOwnerData(ownerData);
	}

	/**
	 * Cap how long a lock of the engine may be held when its request sets no
	 * {@code maxHold}, as {@link CuratorLockManager#setDefaultMaxHold(Duration)} does.
	 * @param maxHold the cap, positive, or {@code null} for none (the default)
	 */
	public void setDefaultMaxHold(@Nullable Duration maxHold) {
		this.engine.holdTimers().setDefaultMaxHold(maxHold);
	}

	/**
	 * Set how the engine looks for deadlocks, as
	 * {@link CuratorLockManager#setDeadlockDetection(DeadlockDetectionSettings)} does:
	 * for a manager with an engine of its own, or to change the settings of a shared
	 * one.
	 * @param settings the settings
	 */
	public void setDeadlockDetection(DeadlockDetectionSettings settings) {
		this.engine.setDeadlockDetection(settings);
	}

	/**
	 * How the engine of this manager looks for deadlocks, as
	 * {@link CuratorLockManager#getDeadlockDetection()}.
	 * @return the settings last set
	 */
	public DeadlockDetectionSettings getDeadlockDetection() {
		return this.engine.deadlockDetection();
	}

	/**
	 * Set the instrumentations told about every acquisition and release, in order
	 * on acquisition and in reverse order on release. A failing instrumentation is
	 * logged and never breaks the lock or the caller's work.
	 * @param instrumentations the instrumentations, replacing those set before
	 */
	public void setInstrumentations(List<? extends LockInstrumentation> instrumentations) {
		Objects.requireNonNull(instrumentations, "instrumentations must not be null");
		this.instrumentations = instrumentations.isEmpty() ? Instrumentations.NONE
				: new Instrumentations(instrumentations);
	}

	/**
	 * Add a listener told about every lost lock of the engine. An asynchronous
	 * lock's {@link LockInfo#threadName()} is {@code async}: it belongs to no
	 * thread.
	 * @param listener the listener
	 */
	public void addLockLossListener(LockLossListener listener) {
		this.engine.losses().addListener(Objects.requireNonNull(listener, "listener must not be null"));
	}

	/**
	 * The executor that runs what follows an acquisition or a release.
	 * @return the executor
	 */
	public Executor getExecutor() {
		return this.executor;
	}

	/**
	 * The path under which lock nodes are created.
	 * @return the base path
	 */
	public String getBasePath() {
		return this.engine.basePath();
	}

	/**
	 * The locks of the engine, held or awaited, blocking and asynchronous.
	 * @return the registry, read-only
	 */
	public LockRegistry getRegistry() {
		return this.engine.registry();
	}

	/**
	 * Bound the tenures of the engine's locks with local hand-off, as
	 * {@link CuratorLockManager#setLocalHandoffLimits(int, Duration)} does: for a
	 * manager with an engine of its own, or to change the bounds of a shared one.
	 * @param maxPasses the passes, 0 for none (every holder through ZooKeeper once
	 * another process waits)
	 * @param maxTime the time, not negative
	 */
	public void setLocalHandoffLimits(int maxPasses, Duration maxTime) {
		this.engine.cohorts().setLimits(maxPasses, maxTime);
	}

	/**
	 * The last deadlocks the engine ended, newest first, as
	 * {@link CuratorLockManager#getDeadlocks()}.
	 * @return the deadlocks
	 */
	public List<LockDeadlock> getDeadlocks() {
		return this.engine.deadlockAnnouncer().history();
	}

	/**
	 * The local hand-off of the engine: tenures and counts, as
	 * {@link CuratorLockManager#getLocalHandoffs()}.
	 * @return the view
	 */
	public LocalHandoffs getLocalHandoffs() {
		return new LocalHandoffs(this.engine.cohorts());
	}

	/**
	 * The locks of the engine right now, held or awaited, blocking and
	 * asynchronous; asynchronous ones have thread name {@code async}.
	 * @return the locks, in no particular order
	 */
	public List<LockInfo> snapshot() {
		return this.engine.registry().snapshot();
	}

	/**
	 * Number of the engine's locks in the given state, one per key.
	 * @param state the state
	 * @return the count
	 */
	public int count(LockState state) {
		return this.engine.registry().count(state);
	}

	/**
	 * Start acquiring the request's lock. Never blocks: the ZooKeeper calls run in
	 * the background. The lock nodes' owner data is that of the calling thread, as
	 * for a blocking acquisition. Cancelling the returned future abandons the wait
	 * and deletes the nodes created for it; a lock acquired at the same moment is
	 * released.
	 * @param request what to lock, in any mode
	 * @return completes on the executor with a handle, whose
	 * {@link AsyncLockHandle#isAcquired()} is false when the timeout elapsed, or
	 * exceptionally with a {@link LockException} when ZooKeeper failed
	 */
	public CompletableFuture<AsyncLockHandle> acquire(LockRequest request) {
		Objects.requireNonNull(request, "request must not be null");
		Instrumentations.Acquisition instrumentation = this.instrumentations.start(request, true);
		byte @Nullable [] ownerData;
		try {
			this.engine.checkCanAcquire(request);
		}
		catch (LockException | IllegalArgumentException ex) {
			instrumentation.failed(ex);
			return CompletableFuture.failedFuture(ex);
		}
		try {
			// here, on the caller's thread: the node names who asked, not the pool thread that starts it
			ownerData = this.engine.ownerData().forCurrentThread();
		}
		catch (RuntimeException ex) {
			LockException failure = startFailure(request, ex);
			instrumentation.failed(failure);
			return CompletableFuture.failedFuture(failure);
		}
		CompletableFuture<AsyncLockHandle> result = new CompletableFuture<>();
		try {
			this.executor.execute(() -> start(request, ownerData, instrumentation, result));
		}
		catch (RejectedExecutionException ex) {
			LockException failure = new LockException(
					"Cannot acquire lock '" + request.name() + "': the asynchronous lock manager is closed", ex);
			instrumentation.failed(failure);
			return CompletableFuture.failedFuture(failure);
		}
		return result;
	}

	HoldTimers holdTimers() {
		return this.engine.holdTimers();
	}

	// A failure to start an acquisition, as the LockException the caller expects
	static LockException startFailure(LockRequest request, Throwable cause) {
		return (cause instanceof LockException lockException) ? lockException
				: new LockException("Could not start acquiring lock '" + request.name() + "' in " + request.mode()
						+ " mode: " + cause + "; nothing is held and no node was left in ZooKeeper. Check the "
						+ "LockOwnerData set, if any, then try again", cause);
	}

	/**
	 * Begin the shutdown of the engine, as {@link CuratorLockManager#beginShutdown()}
	 * does: no new lock, and every wait under way ends, its node deleted.
	 */
	public void beginShutdown() {
		this.engine.shutdown().begin();
	}

	/**
	 * Whether the engine's shutdown has begun: it takes no new lock, and a wait
	 * that ended for it is not worth trying again.
	 * @return whether {@link #beginShutdown()} was called on this engine
	 */
	public boolean isShuttingDown() {
		return this.engine.shutdown().isShuttingDown();
	}

	/**
	 * Let the engine's holds in flight finish, then give up what remains, as
	 * {@link CuratorLockManager#drain(Duration)} does.
	 * @param timeout the longest wait for the holds in flight
	 * @return the number of locks given up
	 */
	public int drain(Duration timeout) {
		return this.engine.shutdown().drain(Objects.requireNonNull(timeout, "timeout must not be null"));
	}

	/**
	 * Stop the view's own executor, and the engine when this manager built it. The
	 * shared view of {@link CuratorLockManager#async(Executor) async(null)} keeps its
	 * executor, which stops when that manager closes. Locks still held stay held
	 * until released or until the client closes.
	 */
	@Override
	public void close() {
		if (this.ownsEngine) {
			this.engine.close();
		}
		if (!this.sharedExecutor) {
			closeExecutor();
		}
	}

	// Results still to come are then delivered on the fallback thread
	void closeExecutor() {
		if (this.ownExecutor != null) {
			this.ownExecutor.shutdown();
		}
	}

	// ---- The asynchronous path: the acquisition, its delivery on the executor, and the release

	/**
	 * Acquire the request's keys, on the executor, and complete the result with a
	 * handle there; a result cancelled meanwhile cancels the acquisition. The
	 * result completes whatever happens, exceptionally when the acquisition could
	 * not even start.
	 * @param ownerData the owner data computed on the caller's thread
	 */
	private void start(LockRequest request, byte @Nullable [] ownerData, Instrumentations.Acquisition instrumentation,
			CompletableFuture<AsyncLockHandle> result) {
		List<String> keys = LockEngine.sortedKeys(request);
		Acquisition acquisition;
		try {
			List<String> lockKeys = LockEngine.lockKeys(keys);
			List<Acquisition.Target> targets = new ArrayList<>(lockKeys.size());
			for (String key : lockKeys) {
				targets.add(new Acquisition.Target(key, this.engine.pathFor(request.name(), key), null, 0));
			}
			acquisition = this.engine.acquireFor(ownerData, request.name(), request.mode(), request.permits(),
					targets, request.timeout(), request.usesLocalHandoff());
		}
		catch (RuntimeException ex) {
			// nothing is held and the engine took back what it sent: only the caller is left to tell
			LockException failure = startFailure(request, ex);
			instrumentation.failed(failure);
			result.completeExceptionally(failure);
			return;
		}
		acquisition.armTimer();
		result.whenComplete((handle, ex) -> {
			if (result.isCancelled() && acquisition.cancel()) {
				instrumentation.failed(ex);
			}
		});
		acquisition.result().whenComplete((holds, ex) -> {
			try {
				this.executor.execute(() -> deliver(request, keys, holds, ex, instrumentation, result));
			}
			catch (RejectedExecutionException rejected) {
				this.fallback.execute(() -> refused(request, holds, ex, instrumentation, result, rejected));
			}
		});
	}

	private void deliver(LockRequest request, List<String> keys, @Nullable List<Hold> holds, @Nullable Throwable ex,
			Instrumentations.Acquisition instrumentation, CompletableFuture<AsyncLockHandle> result) {
		if (ex != null) {
			fail(ex, instrumentation, result);
			return;
		}
		AsyncLockHandle handle = new AsyncLockHandle(this, request.name(), keys, request.mode(),
				(holds != null) ? holds : List.of(), holds != null, instrumentation);
		if (holds == null) {
			instrumentation.notAcquired();
			result.complete(handle);
			return;
		}
		this.engine.handOver(holds, request);
		// reported before the caller can release it
		instrumentation.acquired(handle);
		if (!result.complete(handle)) {
			handle.release();
		}
	}

	// The executor refused the delivery: a lock taken goes back, as the work it was for cannot run there
	private void refused(LockRequest request, @Nullable List<Hold> holds, @Nullable Throwable ex,
			Instrumentations.Acquisition instrumentation, CompletableFuture<AsyncLockHandle> result,
			RejectedExecutionException rejected) {
		if (ex != null) {
			fail(ex, instrumentation, result);
			return;
		}
		if (holds != null) {
			this.releases.release(holds);
		}
		// a lock without keys is named alone, as everywhere else
		String keys = request.keys().isEmpty() ? ""
				: " keys " + request.keys().stream().map(LockPaths::abbreviate).toList();
		logger.warn("Lock '{}'{}: the executor refused to run what follows the acquisition ({}); {}", request.name(),
				keys, rejected.toString(), (holds != null) ? "the lock was released" : "it was not acquired");
		LockException failure = new LockException("Lock '" + request.name() + "' could not be handed over: the "
				+ "asynchronous lock manager's executor refused to run what follows (" + rejected + "), so "
				+ ((holds != null) ? "the lock was released again" : "nothing is held") + ". Give the manager an "
				+ "executor that accepts the work, or stop acquiring once it is shut down", rejected);
		instrumentation.failed(failure);
		result.completeExceptionally(failure);
	}

	private static void fail(Throwable ex, Instrumentations.Acquisition instrumentation,
			CompletableFuture<AsyncLockHandle> result) {
		Throwable cause = LockEngine.unwrap(ex);
		if (!(cause instanceof CancellationException)) {
			instrumentation.failed(cause);
			result.completeExceptionally(cause);
		}
	}

	/**
	 * Release a handle's holds, telling its instrumentation, and complete on the
	 * executor. When the executor refuses, an outcome known before this returns
	 * completes on the caller's thread, one ZooKeeper gives later on a thread of
	 * the view's own.
	 */
	CompletableFuture<Void> release(AsyncLockHandle handle) {
		CompletableFuture<Void> released;
		try {
			released = this.releases.release(handle.holds());
		}
		catch (RuntimeException ex) {
			released = CompletableFuture.failedFuture(ex);
		}
		CompletableFuture<Void> lingering = handle.lingering();
		if (lingering != null) {
			handle.instrumentation().releasedLingering(lingering);
		}
		else {
			handle.instrumentation().released();
		}
		CompletableFuture<Void> result = new CompletableFuture<>();
		// read before whenComplete: if done, the completion below runs here, on the caller's thread
		boolean known = released.isDone();
		released.whenComplete((ignored, ex) -> {
			Runnable completion = () -> {
				if (ex != null) {
					Throwable cause = LockEngine.unwrap(ex);
					result.completeExceptionally((cause instanceof LockException) ? cause
							: new LockException("Could not release lock '" + handle.name() + "': " + cause, cause));
				}
				else {
					result.complete(null);
				}
			};
			try {
				this.executor.execute(completion);
			}
			catch (RejectedExecutionException rejected) {
				if (known) {
					// done before release() returns, as the JVM's exit waits for the caller and not for the fallback
					completion.run();
				}
				else {
					// later, on Curator's event thread: never the place for the caller's continuations
					this.fallback.execute(completion);
				}
			}
		});
		return result;
	}

}
