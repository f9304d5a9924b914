package dev.zklock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockException;
import dev.zklock.LockLossReason;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

/**
 * Takes MUTEX locks for asynchronous work without blocking any thread and without
 * tying the lock to one: every ZooKeeper call runs in the background, a watch on
 * the predecessor node replaces waiting, a timer ends the wait at the timeout, and
 * any thread may release the lock. Nodes live where {@link CuratorLockManager}
 * puts them ({@code <basePath>/<name>/<key>}, {@link KeyEncoder}) and follow
 * {@code InterProcessMutex}'s protocol, so asynchronous and synchronous MUTEX
 * holders of the same lock exclude each other. The fencing token is the creation
 * zxid of our node.
 * <p>
 * These locks are not re-entrant: a second acquisition of a key this process
 * holds asynchronously waits behind the first. READ, WRITE and SEMAPHORE are not
 * supported.
 * <p>
 * Results are delivered on the manager's executor, never on Curator's event
 * thread. Connection problems move held locks to {@link LockState#IN_DOUBT} and
 * {@link LockState#LOST} like the synchronous ones; {@link AsyncLockHandle#isHeld()}
 * tells.
 * <p>
 * {@link LockInstrumentation}s set with {@link #setInstrumentations} see every
 * acquisition through {@link LockInstrumentation#startAsync}: its outcome
 * (a cancelled acquisition is reported as failed with a
 * {@link java.util.concurrent.CancellationException}) and the release of each lock
 * acquired.
 */
public class AsyncLockManager implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(AsyncLockManager.class);

	private static final long MAX_WAIT_NANOS = TimeUnit.DAYS.toNanos(365);

	private final CuratorFramework client;

	private final String basePath;

	private final Duration defaultTimeout;

	private final Executor executor;

	private final ExecutorService ownExecutor;

	private final ScheduledThreadPoolExecutor scheduler;

	private final Set<AsyncHold> held = ConcurrentHashMap.newKeySet();

	private final Set<Acquisition> waiting = ConcurrentHashMap.newKeySet();

	private final List<LockLossListener> lossListeners = new CopyOnWriteArrayList<>();

	private final ConnectionStateListener connectionListener = (client, state) -> connectionChanged(state);

	private volatile LockOwnerData ownerData = LockOwnerData.json(null);

	private volatile Instrumentations instrumentations = Instrumentations.NONE;

	/**
	 * Create a new manager that delivers results on an executor of its own (a
	 * fork-join pool of daemon threads named {@code zk-lock-async-N}).
	 * @param client the Curator client; it must be started before locks are taken
	 * @param basePath the path under which every lock node is created, as for
	 * {@link CuratorLockManager}
	 * @param defaultTimeout the wait used by requests without a timeout
	 */
	public AsyncLockManager(CuratorFramework client, String basePath, Duration defaultTimeout) {
		this(client, basePath, defaultTimeout, null);
	}

	/**
	 * Create a new manager.
	 * @param client the Curator client; it must be started before locks are taken
	 * @param basePath the path under which every lock node is created, as for
	 * {@link CuratorLockManager}
	 * @param defaultTimeout the wait used by requests without a timeout
	 * @param executor runs what follows an acquisition or a release (for
	 * {@code @DistributedLock}, the locked method); {@code null} for one of the
	 * manager's own
	 */
	public AsyncLockManager(CuratorFramework client, String basePath, Duration defaultTimeout, Executor executor) {
		this.client = Objects.requireNonNull(client, "client must not be null");
		this.basePath = CuratorLockManager.normalizeBasePath(basePath);
		Objects.requireNonNull(defaultTimeout, "defaultTimeout must not be null");
		if (defaultTimeout.isNegative()) {
			throw new IllegalArgumentException(
					"zk-lock.default-timeout must not be negative, got " + defaultTimeout + "; use 0 to try once");
		}
		this.defaultTimeout = defaultTimeout;
		this.ownExecutor = (executor != null) ? null : newExecutor();
		this.executor = (executor != null) ? executor : this.ownExecutor;
		this.scheduler = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "zk-lock-async-timer");
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler.setRemoveOnCancelPolicy(true);
		this.client.getConnectionStateListenable().addListener(this.connectionListener, this.scheduler);
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
	 * Set the data stored in each lock node, as for
	 * {@link CuratorLockManager#setOwnerData(LockOwnerData)}.
	 * @param ownerData the owner data
	 */
	public void setOwnerData(LockOwnerData ownerData) {
		this.ownerData = Objects.requireNonNull(ownerData, "ownerData must not be null");
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
	 * Add a listener told about every lost asynchronous lock. Its
	 * {@link LockInfo#threadName()} is {@code async}: the lock belongs to no thread.
	 * @param listener the listener
	 */
	public void addLockLossListener(LockLossListener listener) {
		this.lossListeners.add(Objects.requireNonNull(listener, "listener must not be null"));
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
		return this.basePath;
	}

	/**
	 * The locks held asynchronously right now, one per key, and the key each
	 * pending acquisition waits for ({@link LockState#WAITING}).
	 * @return the locks, in no particular order
	 */
	public List<LockInfo> snapshot() {
		List<LockInfo> result = new ArrayList<>();
		for (AsyncHold hold : this.held) {
			result.add(hold.toInfo());
		}
		for (Acquisition acquisition : this.waiting) {
			LockInfo info = acquisition.toWaitingInfo();
			if (info != null) {
				result.add(info);
			}
		}
		return result;
	}

	/**
	 * Number of keys held asynchronously in the given state, or of acquisitions
	 * pending for {@link LockState#WAITING}. Cheap enough for health checks.
	 * @param state the state
	 * @return the count
	 */
	public int count(LockState state) {
		if (state == LockState.WAITING) {
			return this.waiting.size();
		}
		int count = 0;
		for (AsyncHold hold : this.held) {
			if (hold.state() == state) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Start acquiring the request's lock. Never blocks: the ZooKeeper calls run in
	 * the background. Several keys are locked in sorted order, all or nothing, within
	 * one timeout. Cancelling the returned future abandons the wait and deletes the
	 * node created for it; a lock acquired at the same moment is released.
	 * @param request what to lock, in {@link LockMode#MUTEX} mode
	 * @return completes on the executor with a handle, whose
	 * {@link AsyncLockHandle#isAcquired()} is false when the timeout elapsed, or
	 * exceptionally with a {@link LockException} when ZooKeeper failed
	 */
	public CompletableFuture<AsyncLockHandle> acquire(LockRequest request) {
		Objects.requireNonNull(request, "request must not be null");
		Instrumentations.Acquisition instrumentation = this.instrumentations.start(request, true);
		if (request.mode() != LockMode.MUTEX) {
			return failed(instrumentation, new LockException("Lock '" + request.name() + "' is requested in "
					+ request.mode() + " mode, but asynchronous locks support MUTEX only; use mode = MUTEX, or lock "
					+ "a synchronous method"));
		}
		CuratorFrameworkState state = this.client.getState();
		if (state != CuratorFrameworkState.STARTED) {
			return failed(instrumentation, new LockException("Cannot acquire lock '" + request.name()
					+ "': the Curator client is " + state + ", not STARTED; start it before taking locks"));
		}
		Acquisition acquisition = new Acquisition(request, instrumentation);
		this.waiting.add(acquisition);
		try {
			this.executor.execute(acquisition::start);
		}
		catch (RejectedExecutionException ex) {
			this.waiting.remove(acquisition);
			return failed(instrumentation, new LockException("Cannot acquire lock '" + request.name()
					+ "': the asynchronous lock manager is closed", ex));
		}
		return acquisition.result;
	}

	private static CompletableFuture<AsyncLockHandle> failed(Instrumentations.Acquisition instrumentation,
			LockException failure) {
		instrumentation.failed(failure);
		return CompletableFuture.failedFuture(failure);
	}

	CompletableFuture<Void> release(AsyncLockHandle handle) {
		handle.instrumentation().released();
		List<AsyncHold> holds = new ArrayList<>(handle.holds());
		Collections.reverse(holds);
		List<CompletableFuture<Void>> releases = new ArrayList<>(holds.size());
		for (AsyncHold hold : holds) {
			this.held.remove(hold);
			releases.add(hold.release().handle((ignored, ex) -> {
				if (ex != null) {
					logger.error("Could not confirm the release of lock '{}' key '{}' at {}; this process no longer "
							+ "holds it, and Curator deletes the node in the background or ZooKeeper when the session "
							+ "ends", hold.name(), KeyEncoder.abbreviate(hold.key()), hold.node().path(), unwrap(ex));
					throw new LockException("Could not confirm the release of lock '" + hold.name() + "' key '"
							+ KeyEncoder.abbreviate(hold.key()) + "': " + unwrap(ex) + "; its node is deleted in the "
							+ "background, check the ZooKeeper connection", unwrap(ex));
				}
				logger.debug("Released asynchronous lock '{}' key '{}'", hold.name(),
						KeyEncoder.abbreviate(hold.key()));
				return null;
			}));
		}
		CompletableFuture<Void> all = CompletableFuture.allOf(releases.toArray(new CompletableFuture<?>[0]));
		CompletableFuture<Void> result = new CompletableFuture<>();
		all.whenComplete((ignored, ex) -> deliver(() -> {
			if (ex != null) {
				result.completeExceptionally(unwrap(ex));
			}
			else {
				result.complete(null);
			}
		}));
		return result;
	}

	/**
	 * Stop listening to the client and stop the manager's threads. Locks still held
	 * stay held until released or until the client closes.
	 */
	@Override
	public void close() {
		this.client.getConnectionStateListenable().removeListener(this.connectionListener);
		this.scheduler.shutdownNow();
		if (this.ownExecutor != null) {
			this.ownExecutor.shutdown();
		}
	}

	private void deliver(Runnable task) {
		try {
			this.executor.execute(task);
		}
		catch (RejectedExecutionException ex) {
			task.run();
		}
	}

	private String pathFor(String name, String key) {
		String keySegment = (key != null) ? KeyEncoder.encode(key) : KeyEncoder.NO_KEY;
		return this.basePath + "/" + KeyEncoder.encode(name) + "/" + keySegment;
	}

	private void connectionChanged(ConnectionState state) {
		switch (state) {
			case SUSPENDED -> {
				if (this.client.getConnectionStateErrorPolicy().isErrorState(ConnectionState.SUSPENDED)) {
					for (AsyncHold hold : this.held) {
						if (hold.transition(LockState.HELD, LockState.IN_DOUBT)) {
							logger.warn("ZooKeeper connection suspended: asynchronous lock '{}' key '{}' is in doubt "
									+ "until the client reconnects with the same session", hold.name(),
									KeyEncoder.abbreviate(hold.key()));
						}
					}
				}
			}
			case LOST -> this.held.forEach((hold) -> lose(hold, LockLossReason.SESSION_LOST));
			case RECONNECTED -> this.held.forEach(this::recheck);
			default -> {
			}
		}
	}

	private void recheck(AsyncHold hold) {
		if (hold.state() != LockState.IN_DOUBT) {
			return;
		}
		long session;
		try {
			session = this.client.getZookeeperClient().getZooKeeper().getSessionId();
		}
		catch (Exception ex) {
			logger.debug("Could not read the current ZooKeeper session", ex);
			return;
		}
		if (hold.node().session() != session) {
			lose(hold, LockLossReason.SESSION_CHANGED);
			return;
		}
		try {
			this.client.checkExists().inBackground((client, event) -> {
				if (event.getStat() == null || event.getStat().getCzxid() != hold.node().czxid()) {
					lose(hold, LockLossReason.NODE_DELETED);
				}
				else if (hold.transition(LockState.IN_DOUBT, LockState.HELD)) {
					logger.info("ZooKeeper reconnected with the same session: asynchronous lock '{}' key '{}' is held "
							+ "again", hold.name(), KeyEncoder.abbreviate(hold.key()));
				}
			}).forPath(hold.node().path());
		}
		catch (Exception ex) {
			logger.debug("Could not check lock node {} after reconnecting", hold.node().path(), ex);
		}
	}

	private void lose(AsyncHold hold, LockLossReason reason) {
		if (!hold.lose(reason)) {
			return;
		}
		logger.error("Asynchronous lock '{}' key '{}' was lost ({}): another process may hold it now; its fencing "
				+ "token was {}", hold.name(), KeyEncoder.abbreviate(hold.key()), reason, hold.node().czxid());
		LockInfo info = hold.toInfo();
		for (LockLossListener listener : this.lossListeners) {
			try {
				listener.lockLost(info, reason);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock loss listener {} failed for lock '{}'", listener, hold.name(), ex);
			}
		}
	}

	private static Throwable unwrap(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	private static long waitNanos(Duration timeout) {
		return (timeout.compareTo(Duration.ofNanos(MAX_WAIT_NANOS)) >= 0) ? MAX_WAIT_NANOS : timeout.toNanos();
	}

	/**
	 * One acquisition of one request: its keys one after the other, the timer, and
	 * the result. Its fields change under its monitor.
	 */
	private final class Acquisition {

		private final LockRequest request;

		private final Instrumentations.Acquisition instrumentation;

		private final Instant since = Instant.now();

		private final List<String> keys;

		private final List<String> lockKeys;

		private final Duration timeout;

		private final CompletableFuture<AsyncLockHandle> result = new CompletableFuture<>();

		private final List<AsyncHold> taken = new ArrayList<>();

		private AsyncMutex current;

		private ScheduledFuture<?> timer;

		private boolean finished;

		Acquisition(LockRequest request, Instrumentations.Acquisition instrumentation) {
			this.request = request;
			this.instrumentation = instrumentation;
			this.keys = List.copyOf(new TreeSet<>(request.keys()));
			this.lockKeys = this.keys.isEmpty() ? Collections.singletonList(null) : this.keys;
			this.timeout = (request.timeout() != null) ? request.timeout() : AsyncLockManager.this.defaultTimeout;
		}

		void start() {
			this.result.whenComplete((handle, ex) -> {
				if (this.result.isCancelled()) {
					logger.debug("Acquisition of lock '{}' cancelled", this.request.name());
					abandon(false);
					this.instrumentation.failed(ex);
				}
			});
			if (!this.timeout.isZero()) {
				try {
					this.timer = AsyncLockManager.this.scheduler.schedule(() -> abandon(true), waitNanos(this.timeout),
							TimeUnit.NANOSECONDS);
				}
				catch (RejectedExecutionException ex) {
					fail(null, new LockException("Cannot acquire lock '" + this.request.name()
							+ "': the asynchronous lock manager is closed", ex));
					return;
				}
			}
			next();
		}

		/**
		 * The key this acquisition waits for, or {@code null} once it is finished.
		 */
		synchronized LockInfo toWaitingInfo() {
			if (this.finished) {
				return null;
			}
			String key = this.lockKeys.get(Math.min(this.taken.size(), this.lockKeys.size() - 1));
			return new LockInfo(this.request.name(), key, pathFor(this.request.name(), key), LockMode.MUTEX, "async",
					0, this.since, LockState.WAITING, 0);
		}

		private void finish() {
			this.finished = true;
			cancelTimer();
			AsyncLockManager.this.waiting.remove(this);
		}

		private void next() {
			AsyncMutex mutex;
			String key;
			AsyncLockHandle handle = null;
			synchronized (this) {
				if (this.finished) {
					return;
				}
				int index = this.taken.size();
				if (index == this.lockKeys.size()) {
					finish();
					handle = new AsyncLockHandle(AsyncLockManager.this, this.request.name(), this.keys,
							List.copyOf(this.taken), true, this.instrumentation);
					mutex = null;
					key = null;
				}
				else {
					key = this.lockKeys.get(index);
					mutex = new AsyncMutex(AsyncLockManager.this.client, pathFor(this.request.name(), key),
							AsyncLockManager.this.ownerData, this.timeout.isZero());
					this.current = mutex;
				}
			}
			if (handle != null) {
				AsyncLockHandle acquired = handle;
				deliver(() -> {
					// reported before the caller can release it
					this.instrumentation.acquired(acquired);
					if (!this.result.complete(acquired)) {
						acquired.release();
					}
				});
				return;
			}
			mutex.start().whenComplete((node, ex) -> keyDone(mutex, key, node, ex));
		}

		private void keyDone(AsyncMutex mutex, String key, LockNode node, Throwable ex) {
			if (ex != null) {
				fail(key, ex);
				return;
			}
			if (node == null) {
				// tried once and found it taken, or abandoned
				abandon(true);
				return;
			}
			AsyncHold hold = new AsyncHold(this.request.name(), key, pathFor(this.request.name(), key), mutex, node);
			synchronized (this) {
				if (!this.finished) {
					this.taken.add(hold);
					AsyncLockManager.this.held.add(hold);
					hold = null;
				}
			}
			if (hold != null) {
				// the wait ended while the node won: give it back
				hold.release();
				return;
			}
			logger.debug("Acquired asynchronous lock '{}' key '{}', fencing token {}", this.request.name(),
					KeyEncoder.abbreviate(key), node.czxid());
			next();
		}

		// Timeout, cancellation or a lock found taken by a single try
		private void abandon(boolean timedOut) {
			List<AsyncHold> toRelease;
			AsyncMutex mutex;
			synchronized (this) {
				if (this.finished) {
					return;
				}
				finish();
				mutex = this.current;
				toRelease = new ArrayList<>(this.taken);
			}
			if (mutex != null) {
				mutex.abandon();
			}
			releaseAll(toRelease);
			if (timedOut) {
				logger.debug("Asynchronous lock '{}' not acquired within {}", this.request.name(), this.timeout);
				AsyncLockHandle notAcquired = new AsyncLockHandle(AsyncLockManager.this, this.request.name(),
						this.keys, List.of(), false, this.instrumentation);
				deliver(() -> {
					this.instrumentation.notAcquired();
					this.result.complete(notAcquired);
				});
			}
		}

		private void fail(String key, Throwable ex) {
			List<AsyncHold> toRelease;
			synchronized (this) {
				if (this.finished) {
					return;
				}
				finish();
				toRelease = new ArrayList<>(this.taken);
			}
			releaseAll(toRelease);
			Throwable cause = unwrap(ex);
			LockException failure = (cause instanceof LockException lockException) ? lockException
					: new LockException("Could not acquire lock '" + this.request.name() + "' key '"
							+ KeyEncoder.abbreviate(key) + "' asynchronously at " + pathFor(this.request.name(), key)
							+ ": " + cause + "; check the ZooKeeper connection (zk-lock.connect-string)", cause);
			deliver(() -> {
				this.instrumentation.failed(failure);
				this.result.completeExceptionally(failure);
			});
		}

		private void releaseAll(List<AsyncHold> holds) {
			for (int i = holds.size() - 1; i >= 0; i--) {
				AsyncHold hold = holds.get(i);
				AsyncLockManager.this.held.remove(hold);
				hold.release();
			}
		}

		private void cancelTimer() {
			if (this.timer != null) {
				this.timer.cancel(false);
			}
		}

	}

}
