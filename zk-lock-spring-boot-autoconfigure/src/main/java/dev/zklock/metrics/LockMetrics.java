package dev.zklock.metrics;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

import dev.zklock.LockContext;
import dev.zklock.LockLossReason;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.LockInfo;
import dev.zklock.core.LockInstrumentation;
import dev.zklock.LockLossListener;
import dev.zklock.LongHoldListener;

/**
 * Micrometer meters for locks. Tags are the lock name, the mode and the outcome,
 * never a key, so the number of meters grows with the number of lock names only:
 * <ul>
 * <li>{@code zk.lock.acquire}: timer of the wait, tagged {@code name}, {@code mode}
 * and {@code outcome} ({@code acquired}, {@code timeout}, {@code skipped},
 * {@code error} or {@code interrupted}; a cancelled asynchronous acquisition is
 * {@code interrupted});</li>
 * <li>{@code zk.lock.held}: timer of the hold, tagged {@code name} and
 * {@code mode}; a lock kept for its {@code minHold} after its work finished counts
 * as held, here and in {@code zk.lock.active}, until its node is deleted;</li>
 * <li>{@code zk.lock.active} and {@code zk.lock.waiting}: gauges of the locks held
 * and awaited by this process, tagged {@code name};</li>
 * <li>{@code zk.lock.lost}: counter of the locks lost while held, tagged
 * {@code name}, {@code mode} and {@code reason} ({@code session_lost},
 * {@code session_changed} or {@code node_deleted});</li>
 * <li>{@code zk.lock.hold.warnings}: counter of the locks held longer than
 * {@code zk-lock.hold-warning}, tagged {@code name} and {@code mode}.</li>
 * </ul>
 * Synchronous and asynchronous locks ({@link dev.zklock.core.AsyncLockManager})
 * feed the same meters; for asynchronous ones {@code zk.lock.waiting} counts
 * pending acquisitions rather than threads.
 */
public class LockMetrics implements LockInstrumentation, LockLossListener, LongHoldListener {

	/**
	 * Timer of the wait for a lock.
	 */
	public static final String ACQUIRE = "zk.lock.acquire";

	/**
	 * Timer of the time a lock is held.
	 */
	public static final String HELD = "zk.lock.held";

	/**
	 * Gauge of the locks held by this process.
	 */
	public static final String ACTIVE = "zk.lock.active";

	/**
	 * Gauge of the threads of this process waiting for a lock.
	 */
	public static final String WAITING = "zk.lock.waiting";

	/**
	 * Counter of the locks lost while held.
	 */
	public static final String LOST = "zk.lock.lost";

	/**
	 * Counter of the locks held longer than {@code zk-lock.hold-warning}.
	 */
	public static final String HOLD_WARNINGS = "zk.lock.hold.warnings";

	private static final LockMode[] MODES = LockMode.values();

	private static final LockOutcome[] OUTCOMES = LockOutcome.values();

	private final MeterRegistry registry;

	private final Clock clock;

	private final ConcurrentMap<String, NameMeters> names = new ConcurrentHashMap<>();

	/**
	 * Create a new instance.
	 * @param registry where the meters are registered
	 */
	public LockMetrics(MeterRegistry registry) {
		this.registry = registry;
		this.clock = registry.config().clock();
	}

	@Override
	public Acquisition start(LockRequest request) {
		NameMeters meters = meters(request.name());
		Acquisition acquisition = new MeteredAcquisition(meters, request.mode(), this.clock.monotonicTime(), null);
		meters.waiting.incrementAndGet();
		return acquisition;
	}

	/**
	 * Start metering an asynchronous acquisition. What a timeout leads to is read
	 * now, on the calling thread, since the timeout is reported on another; a
	 * cancelled acquisition counts as {@code interrupted}.
	 */
	@Override
	public Acquisition startAsync(LockRequest request) {
		NameMeters meters = meters(request.name());
		Acquisition acquisition = new MeteredAcquisition(meters, request.mode(), this.clock.monotonicTime(),
				LockOutcome.notAcquired(request.name()));
		meters.waiting.incrementAndGet();
		return acquisition;
	}

	@Override
	public void lockLost(LockInfo lock, LockLossReason reason) {
		meters(lock.name()).lostCounter(lock.mode(), reason).increment();
	}

	@Override
	public void heldTooLong(LockInfo lock, Duration threshold) {
		meters(lock.name()).holdWarningCounter(lock.mode()).increment();
	}

	private NameMeters meters(String name) {
		NameMeters meters = this.names.get(name);
		return (meters != null) ? meters : this.names.computeIfAbsent(name, NameMeters::new);
	}

	static String tag(LockMode mode) {
		return mode.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * The meters of one lock name, created when first needed.
	 */
	private final class NameMeters {

		private final String name;

		private final AtomicInteger active = new AtomicInteger();

		private final AtomicInteger waiting = new AtomicInteger();

		private final AtomicReferenceArray<Timer> acquireTimers = new AtomicReferenceArray<>(
				MODES.length * OUTCOMES.length);

		private final AtomicReferenceArray<Timer> heldTimers = new AtomicReferenceArray<>(MODES.length);

		private final ConcurrentMap<String, Counter> counters = new ConcurrentHashMap<>();

		NameMeters(String name) {
			this.name = name;
			Gauge.builder(ACTIVE, this.active, AtomicInteger::get)
				.tag("name", name)
				.description("Locks held by this process")
				.register(LockMetrics.this.registry);
			Gauge.builder(WAITING, this.waiting, AtomicInteger::get)
				.tag("name", name)
				.description("Threads of this process waiting for a lock")
				.register(LockMetrics.this.registry);
		}

		Timer acquireTimer(LockMode mode, LockOutcome outcome) {
			int index = mode.ordinal() * OUTCOMES.length + outcome.ordinal();
			Timer timer = this.acquireTimers.get(index);
			if (timer == null) {
				timer = Timer.builder(ACQUIRE)
					.tag("name", this.name)
					.tag("mode", tag(mode))
					.tag("outcome", outcome.tag())
					.description("Time spent waiting for a lock")
					.register(LockMetrics.this.registry);
				this.acquireTimers.set(index, timer);
			}
			return timer;
		}

		Timer heldTimer(LockMode mode) {
			Timer timer = this.heldTimers.get(mode.ordinal());
			if (timer == null) {
				timer = Timer.builder(HELD)
					.tag("name", this.name)
					.tag("mode", tag(mode))
					.description("Time a lock was held")
					.register(LockMetrics.this.registry);
				this.heldTimers.set(mode.ordinal(), timer);
			}
			return timer;
		}

		Counter lostCounter(LockMode mode, LockLossReason reason) {
			return this.counters.computeIfAbsent(LOST + ":" + mode.name() + ":" + reason.name(),
					(id) -> Counter.builder(LOST)
						.tag("name", this.name)
						.tag("mode", tag(mode))
						.tag("reason", reason.name().toLowerCase(Locale.ROOT))
						.description("Locks lost while held")
						.register(LockMetrics.this.registry));
		}

		Counter holdWarningCounter(LockMode mode) {
			return this.counters.computeIfAbsent(HOLD_WARNINGS + ":" + mode.name(),
					(id) -> Counter.builder(HOLD_WARNINGS)
						.tag("name", this.name)
						.tag("mode", tag(mode))
						.description("Locks held longer than zk-lock.hold-warning")
						.register(LockMetrics.this.registry));
		}

	}

	/**
	 * Records one acquisition and, once acquired, its hold.
	 */
	private final class MeteredAcquisition implements Acquisition {

		private final NameMeters meters;

		private final LockMode mode;

		private final long startNanos;

		private final @Nullable LockOutcome asyncTimeoutOutcome;

		private volatile long acquiredNanos;

		MeteredAcquisition(NameMeters meters, LockMode mode, long startNanos, @Nullable LockOutcome asyncTimeoutOutcome) {
			this.meters = meters;
			this.mode = mode;
			this.startNanos = startNanos;
			this.asyncTimeoutOutcome = asyncTimeoutOutcome;
		}

		@Override
		public void acquired(LockContext lock) {
			this.acquiredNanos = LockMetrics.this.clock.monotonicTime();
			this.meters.waiting.decrementAndGet();
			this.meters.active.incrementAndGet();
			record(LockOutcome.ACQUIRED, this.acquiredNanos);
		}

		@Override
		public void notAcquired() {
			this.meters.waiting.decrementAndGet();
			LockOutcome outcome = (this.asyncTimeoutOutcome != null) ? this.asyncTimeoutOutcome
					: LockOutcome.notAcquired(this.meters.name);
			record(outcome, LockMetrics.this.clock.monotonicTime());
		}

		@Override
		public void failed(Throwable failure) {
			this.meters.waiting.decrementAndGet();
			LockOutcome outcome = (this.asyncTimeoutOutcome != null) ? LockOutcome.failedAsync(failure)
					: LockOutcome.failed(failure);
			record(outcome, LockMetrics.this.clock.monotonicTime());
		}

		// the hold goes on after the work, until its minHold has passed: metered as held until then
		@Override
		public void releasedLingering(CompletionStage<Void> holdEnded) {
			holdEnded.whenComplete((ignored, ex) -> released());
		}

		@Override
		public void released() {
			this.meters.active.decrementAndGet();
			long held = LockMetrics.this.clock.monotonicTime() - this.acquiredNanos;
			this.meters.heldTimer(this.mode).record(held, TimeUnit.NANOSECONDS);
		}

		private void record(LockOutcome outcome, long endNanos) {
			this.meters.acquireTimer(this.mode, outcome).record(endNanos - this.startNanos, TimeUnit.NANOSECONDS);
		}

	}

}
