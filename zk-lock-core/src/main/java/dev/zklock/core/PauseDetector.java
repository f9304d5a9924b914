package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices, with the monotonic clock, when this process went silent: a daemon ticker
 * thread records the time of its last tick every {@code tick}; a gap between two ticks
 * means the process (a stop-the-world GC, {@code SIGSTOP}, a frozen VM) or at least the
 * ticker could not run. Reads are cheap (a volatile read and {@link System#nanoTime()})
 * and never call ZooKeeper, so a hold can consult them on every {@code isHeld()}.
 * <p>
 * Two views of a pause:
 * <ul>
 * <li>{@link #silentLongerThan(long)} and {@link #silenceNanos()}: how long since the
 * last tick, right now. Right after a pause this is true at once, even before the
 * ticker runs again, because the caller's thread reads the clock itself.</li>
 * <li>{@link #pauseEpoch()}: a counter that the ticker increases for every gap longer
 * than the pause threshold, once it runs again. A hold that remembers the epoch at its
 * last confirmation sees a pause that already ended.</li>
 * </ul>
 * {@link #safeSilence(Duration)} gives the silence after which a hold must no longer
 * count as held. Free of Spring; {@link #start()} it once per process and
 * {@link #close()} it on shutdown.
 */
public final class PauseDetector implements AutoCloseable {

	/**
	 * The tick used when none is configured: 10 ms.
	 */
	public static final Duration DEFAULT_TICK = Duration.ofMillis(10);

	private static final Logger logger = LoggerFactory.getLogger(PauseDetector.class);

	// the safe silence is this part of the negotiated session timeout (safeSilence says why)
	private static final int SAFE_PART = 4;

	private final long tickNanos;

	private final long pauseThresholdNanos;

	private final LongSupplier clock;

	private final Thread ticker;

	private final List<Runnable> tickListeners = new CopyOnWriteArrayList<>();

	private volatile long lastTickNanos;

	// written by the ticker thread only
	private volatile long pauseEpoch;

	private volatile long longestGapNanos;

	private volatile boolean closed;

	/**
	 * A detector on the monotonic clock; call {@link #start()} to start ticking.
	 * @param tick how often the ticker ticks, such as {@link #DEFAULT_TICK}
	 * @param pauseThreshold the gap between two ticks that counts as a pause in
	 * {@link #pauseEpoch()}; more than twice the tick
	 */
	public PauseDetector(Duration tick, Duration pauseThreshold) {
		this(tick, pauseThreshold, System::nanoTime);
	}

	PauseDetector(Duration tick, Duration pauseThreshold, LongSupplier clock) {
		if (tick == null || tick.isNegative() || tick.isZero()) {
			throw new IllegalArgumentException("PauseDetector tick must be positive, not " + tick
					+ "; set zk-lock.pause-detection.tick to a few milliseconds, such as 10ms");
		}
		if (pauseThreshold == null || pauseThreshold.compareTo(tick.multipliedBy(2)) <= 0) {
			throw new IllegalArgumentException("PauseDetector pauseThreshold must be more than twice the tick ("
					+ tick.toMillis() + " ms), not " + pauseThreshold
					+ ", or the ticker's own scheduling delays count as pauses");
		}
		this.tickNanos = tick.toNanos();
		this.pauseThresholdNanos = pauseThreshold.toNanos();
		this.clock = clock;
		this.lastTickNanos = clock.getAsLong();
		this.ticker = new Thread(this::run, "zk-lock-pause-detector");
		this.ticker.setDaemon(true);
	}

	/**
	 * A started detector for sessions of the given negotiated timeout: its pause
	 * threshold is a quarter of {@link #safeSilence(Duration)}, at least three ticks.
	 * @param tick how often the ticker ticks
	 * @param sessionTimeout the negotiated session timeout
	 * @return the running detector
	 */
	public static PauseDetector startForSession(Duration tick, Duration sessionTimeout) {
		Duration threshold = safeSilence(sessionTimeout).dividedBy(4);
		Duration minimum = tick.multipliedBy(3);
		PauseDetector detector = new PauseDetector(tick,
				(threshold.compareTo(minimum) > 0) ? threshold : minimum);
		detector.start();
		return detector;
	}

	/**
	 * The longest silence of this process after which a lock may still be reported
	 * held, for a session with the given negotiated timeout: a quarter of it.
	 * @param sessionTimeout the negotiated session timeout, as
	 * {@code ZooKeeper.getSessionTimeout()} returns it
	 * @return the safe silence
	 */
	public static Duration safeSilence(Duration sessionTimeout) {
		if (sessionTimeout == null || sessionTimeout.isNegative() || sessionTimeout.isZero()) {
			throw new IllegalArgumentException("PauseDetector.safeSilence needs the negotiated session timeout, a "
					+ "positive duration, not " + sessionTimeout + "; read it after the client has connected");
		}
		// T is the negotiated session timeout. The server expires a session T after it
		// last received something from the client; its expiry queue rounds that deadline
		// up to the next tick, so never earlier. The client pings after T/3 without
		// sending and gives the connection up after 2T/3 without hearing from the server
		// (its read timeout). So while the client runs and calls itself connected, it got
		// an answer within the last 2T/3, to a request the server received at most a round
		// trip earlier: the server keeps the session for at least T/3 - RTT more, 2T/3 on
		// a healthy connection. Frozen from the last tick on, the process is safe for
		// T/3 - RTT in the worst case. A quarter of T keeps T/12 in hand for the round
		// trip, the ticker's own delay, clock rates that differ slightly between machines,
		// and the moment between the caller's check and its use of the lock.
		return sessionTimeout.dividedBy(SAFE_PART);
	}

	/**
	 * {@link #safeSilence(Duration)} in nanoseconds, without allocating: for every
	 * lock check.
	 * @param sessionTimeoutMillis the negotiated session timeout, positive
	 * @return the safe silence in nanoseconds
	 */
	static long safeSilenceNanos(long sessionTimeoutMillis) {
		return TimeUnit.MILLISECONDS.toNanos(sessionTimeoutMillis) / SAFE_PART;
	}

	/**
	 * Start the ticker thread.
	 * @return this detector
	 */
	public PauseDetector start() {
		this.lastTickNanos = this.clock.getAsLong();
		this.ticker.start();
		return this;
	}

	/**
	 * Whether the ticker has not ticked for longer than the given time.
	 * @param nanos the time, in nanoseconds
	 * @return whether this process may have been silent that long
	 */
	public boolean silentLongerThan(long nanos) {
		return this.clock.getAsLong() - this.lastTickNanos > nanos;
	}

	/**
	 * How long since the ticker last ticked.
	 * @return the silence in nanoseconds, about a tick while all is well
	 */
	public long silenceNanos() {
		return this.clock.getAsLong() - this.lastTickNanos;
	}

	/**
	 * The time of the last tick.
	 * @return the time, on {@link System#nanoTime()}'s scale
	 */
	public long lastTickNanos() {
		return this.lastTickNanos;
	}

	/**
	 * The number of pauses seen so far: gaps between ticks longer than the pause
	 * threshold. Increases when the ticker runs again after a pause.
	 * @return the epoch, 0 before the first pause
	 */
	public long pauseEpoch() {
		return this.pauseEpoch;
	}

	/**
	 * The longest gap between two ticks seen so far.
	 * @return the gap in nanoseconds
	 */
	public long longestGapNanos() {
		return this.longestGapNanos;
	}

	/**
	 * The gap between two ticks that counts as a pause.
	 * @return the threshold in nanoseconds
	 */
	public long pauseThresholdNanos() {
		return this.pauseThresholdNanos;
	}

	/**
	 * Stop the ticker thread. Afterwards the silence only grows.
	 */
	@Override
	public void close() {
		this.closed = true;
		LockSupport.unpark(this.ticker);
	}

	/**
	 * Run a task on the ticker's thread after every tick: work that a lock check hands
	 * on, so that the check itself never waits for, or wakes, another thread.
	 * @param listener the task; quick, and never blocking for long
	 */
	void addTickListener(Runnable listener) {
		this.tickListeners.add(listener);
	}

	void removeTickListener(Runnable listener) {
		this.tickListeners.remove(listener);
	}

	boolean isTicking() {
		return this.ticker.isAlive();
	}

	// one tick: the ticker thread calls it, tests call it with their own clock
	void tick() {
		long now = this.clock.getAsLong();
		long gap = now - this.lastTickNanos;
		if (gap > this.longestGapNanos) {
			this.longestGapNanos = gap;
		}
		if (gap > this.pauseThresholdNanos) {
			this.pauseEpoch++;
			logger.debug("Process silent for {} ms (pause {}); holds must be confirmed again", gap / 1_000_000,
					this.pauseEpoch);
		}
		this.lastTickNanos = now;
		for (Runnable listener : this.tickListeners) {
			try {
				listener.run();
			}
			catch (RuntimeException ex) {
				logger.warn("Pause detector tick listener {} failed", listener, ex);
			}
		}
	}

	private void run() {
		while (!this.closed) {
			LockSupport.parkNanos(this, this.tickNanos);
			if (!this.closed) {
				tick();
			}
		}
	}

	@Override
	public String toString() {
		return "PauseDetector[tick=" + this.tickNanos / 1_000_000 + "ms, pauseThreshold="
				+ this.pauseThresholdNanos / 1_000_000 + "ms, pauses=" + this.pauseEpoch + "]";
	}

}
