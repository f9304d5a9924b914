package dev.zklock.schedules;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.jspecify.annotations.Nullable;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.core.AsyncLockHandle;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.DeadlockDetectionSettings;
import dev.zklock.LockInfo;
import dev.zklock.core.ManualPauseDetectors;
import dev.zklock.core.PauseDetector;
import dev.zklock.core.RoleElection;
import dev.zklock.testsupport.ZooKeeperProxy;

/**
 * One client of a schedule: a Curator client behind its own proxy, its lock manager
 * and asynchronous view, a pause detector whose clock a simulated pause moves, the
 * losses the engine announced (by lock, key and token), and its connection's outages.
 */
final class ScheduleClient implements AutoCloseable {

	/** The clients' session timeout: short, so that a schedule can outlast a session. */
	static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);

	/** The gap between two ticks that the clients' pause detectors count as a pause, as zk-lock picks it. */
	static final Duration PAUSE_THRESHOLD = PauseDetector.safeSilence(SESSION_TIMEOUT).dividedBy(4);

	/** A loss as the engine announced it. @param at when @param reason why */
	record Loss(long at, String reason) {
	}

	private static final Duration WARM_UP = Duration.ofSeconds(10);

	/** How many times a tenure of local hand-off passes on once another client waits, at most. */
	static final int MAX_PASSES = 2;

	/**
	 * How long a tenure of local hand-off passes on once another client waits, at
	 * most: longer than a long hold and a few short ones, so that {@link #MAX_PASSES}
	 * ends most tenures of a hot key, and the longer holds end theirs by time.
	 */
	static final Duration MAX_TIME = Duration.ofSeconds(1);

	/**
	 * When the clients' waits look for deadlocks: half the default second, so that a
	 * cycle of nested acquisitions breaks well within a schedule, and their timeouts,
	 * which must outlast this and the checker's second on top, stay short.
	 */
	static final Duration DEADLOCK_AFTER = Duration.ofMillis(500);

	/** The checker's control that fails a cycle's other members too, or {@code null}: the engine's own rule. */
	volatile @Nullable SecondVictims secondVictims;

	final int index;

	final ZooKeeperProxy proxy;

	final CuratorFramework curator;

	final CuratorLockManager manager;

	final AsyncLockManager async;

	/** The client's election of {@link LeaderSteps#ROLE}, for the leader steps. */
	final RoleElection leaders;

	// how far the pause detector's clock is ahead of the monotonic clock: each simulated pause adds its length
	private final AtomicLong paused = new AtomicLong();

	private final AtomicLong lastClockRead = new AtomicLong(System.nanoTime());

	private final PauseDetector detector;

	private final Map<String, Loss> losses = new ConcurrentHashMap<>();

	private final History history;

	// under this client's monitor, on Curator's event thread
	private long downSince = -1;

	ScheduleClient(int index, List<Integer> serverPorts, String basePath, History history) {
		this.index = index;
		this.history = history;
		this.proxy = ZooKeeperProxy.start("schedule-c" + index, serverPorts);
		this.curator = start(this.proxy.connectString());
		// before the manager's own listener, so that an outage is on record before the engine acts on it
		this.curator.getConnectionStateListenable().addListener((client, state) -> connection(state.isConnected()));
		this.manager = new CuratorLockManager(this.curator, basePath, Duration.ofSeconds(10));
		this.manager.setDeadlockDetection(new DeadlockDetectionSettings(true, DEADLOCK_AFTER,
				DeadlockDetectionSettings.DEFAULTS.history(), null));
		this.detector = ManualPauseDetectors.onClock(this::pauseClock, PAUSE_THRESHOLD).start();
		this.manager.setPauseDetector(this.detector);
		this.manager.setLocalHandoffLimits(MAX_PASSES, MAX_TIME);
		// by holder: the holders of one tenure share its token, and each hears of its own loss
		this.manager.addLockLossListener((lock, reason) -> this.losses
			.putIfAbsent(lossKey(lock.name(), lock.key(), lock.fencingToken(), lock.threadId()),
					new Loss(System.nanoTime(), reason.name())));
		this.async = this.manager.async(null);
		// a warm engine, as an application's is most of the time: its first call may wait longer (COLD_ANSWER_LIMIT)
		LockRequest handoff = LockRequest.named("warm-up").keys("hand-off").localHandoff(true).timeout(WARM_UP).build();
		try (LockHandle plain = this.manager.acquire(LockRequest.named("warm-up").timeout(WARM_UP).build());
				LockHandle local = this.manager.acquire(handoff)) {
			warmedUp(plain.isAcquired() && local.isAcquired());
		}
		// and its local hand-off as well, a pass included: a client process is new for each schedule, and the first
		// hot key of a schedule must queue its node as soon as it asks, not once the classes of a path never taken
		// have loaded on a loaded machine (300 ms once, long enough to come behind a waiter that asked later)
		try {
			AsyncLockHandle first = this.async.acquire(handoff).get(WARM_UP.toMillis(), TimeUnit.MILLISECONDS);
			CompletableFuture<AsyncLockHandle> next = this.async.acquire(handoff);
			warmedUp(first.isAcquired());
			first.release().get(WARM_UP.toMillis(), TimeUnit.MILLISECONDS);
			AsyncLockHandle passed = next.get(WARM_UP.toMillis(), TimeUnit.MILLISECONDS);
			warmedUp(passed.isAcquired());
			passed.release().get(WARM_UP.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Client " + index + " was interrupted while warming up", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new IllegalStateException("Client " + index + " could not take its warm-up locks", ex);
		}
		this.leaders = LeaderSteps.election(index, this.curator, this.async, history);
	}

	private void warmedUp(boolean acquired) {
		if (!acquired) {
			throw new IllegalStateException("Client " + this.index + " could not take its warm-up locks");
		}
	}

	/** What this client's registry still lists, for the check after quiescence. */
	List<String> registryEntries() {
		return this.manager.getRegistry().snapshot().stream().map((lock) -> "c" + this.index + " registry: " + lock).toList();
	}

	/** Where this client records what it sees. */
	History history() {
		return this.history;
	}

	static CuratorFramework start(String connectString) {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.retryPolicy(new ExponentialBackoffRetry(50, 3))
			.sessionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
			.connectionTimeoutMs(1_000)
			.build();
		client.start();
		try {
			if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
				client.close();
				throw new IllegalStateException("Could not connect to " + connectString);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			client.close();
			throw new IllegalStateException("Interrupted while connecting to " + connectString, ex);
		}
		return client;
	}

	private synchronized void connection(boolean connected) {
		long now = System.nanoTime();
		if (!connected && this.downSince < 0) {
			this.downSince = now;
		}
		else if (connected && this.downSince >= 0) {
			this.history.outage(new History.Outage(this.index, this.downSince, now));
			this.downSince = -1;
		}
	}

	// the pause detector's clock; a gap the detector will count as a pause goes into the history, in real time
	private long pauseClock() {
		long now = System.nanoTime() + this.paused.get();
		long gap = now - this.lastClockRead.getAndSet(now);
		if (gap > PAUSE_THRESHOLD.toNanos()) {
			long real = System.nanoTime();
			this.history.pause(new History.Pause(this.index, real - gap, real));
		}
		return now;
	}

	/**
	 * Make the pause detector see a pause of this process, as its ticker would on
	 * running again after a stop of that length.
	 * @param length how long the process was stopped
	 */
	void resumeAfterPause(Duration length) {
		this.paused.addAndGet(length.toNanos());
	}

	/**
	 * The loss the engine announced for a hold, if any.
	 * @param name the lock
	 * @param key the key
	 * @param token the hold's token of that key
	 * @param threadId the id of the thread that asked for it, 0 for an asynchronous
	 * hold (as {@link LockInfo#threadId()} has it)
	 * @return the loss, or {@code null}
	 */
	Loss lossOf(String name, String key, long token, long threadId) {
		return this.losses.get(lossKey(name, key, token, threadId));
	}

	private static String lossKey(String name, String key, long token, long threadId) {
		return name + "/" + key + "/" + token + "/" + threadId;
	}

	@Override
	public void close() {
		synchronized (this) {
			if (this.downSince >= 0) {
				this.history.outage(new History.Outage(this.index, this.downSince, Long.MAX_VALUE));
				this.downSince = -1;
			}
		}
		this.leaders.stop(Duration.ofSeconds(2));
		this.leaders.close();
		this.async.close();
		this.manager.close();
		this.detector.close();
		this.curator.close();
		this.proxy.close();
	}

}
