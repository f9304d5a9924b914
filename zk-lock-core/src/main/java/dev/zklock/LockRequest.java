package dev.zklock;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.LockMode;

/**
 * What to lock: a static name, zero or more keys, a mode, a number of permits, an
 * optional timeout and optional bounds on the hold. Several keys are locked together, all or nothing. No keys
 * means one lock for the whole name. Instances are immutable.
 *
 * @param name the static lock name, used in paths and metrics
 * @param keys the keys to lock together; empty for one lock per name
 * @param mode how the lock is shared
 * @param permits the number of holders allowed in {@link LockMode#SEMAPHORE} mode
 * @param timeout the longest wait, {@link Duration#ZERO} to try once, or
 * {@code null} for the configured default
 * @param maxHold the longest hold: after it the lock is taken away (its node
 * deleted) and the hold is lost with {@link LockLossReason#MAX_HOLD_EXCEEDED};
 * {@code null} for the configured default ({@code zk-lock.max-hold}, unset: no cap)
 * @param minHold the shortest hold: a release that comes sooner returns at once,
 * but the lock stays held until this much time has passed since the grant, on this
 * process's monotonic clock; {@code null} for none
 * @param localHandoff whether this process keeps one node per key and passes the
 * lock from one local holder to the next without ZooKeeper, within a bounded
 * tenure (see {@code docs/hot-keys.md}); holders of one tenure share its fencing
 * token. Only for one key in MUTEX, READ or WRITE mode: SEMAPHORE and several keys
 * take nodes of their own
 */
public record LockRequest(String name, List<String> keys, LockMode mode, int permits, @Nullable Duration timeout,
		@Nullable Duration maxHold, @Nullable Duration minHold, boolean localHandoff) {

	/**
	 * Validate and copy the components.
	 */
	public LockRequest {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("Lock name must not be blank");
		}
		Objects.requireNonNull(keys, "keys must not be null");
		for (String key : keys) {
			if (key == null || key.isBlank()) {
				throw new LockKeyException("Lock '" + name + "' was given a null or blank key");
			}
		}
		keys = List.copyOf(keys);
		Objects.requireNonNull(mode, "mode must not be null");
		if (permits < 1) {
			throw new IllegalArgumentException("Lock '" + name + "' needs at least one permit, got " + permits);
		}
		if (timeout != null && timeout.isNegative()) {
			throw new IllegalArgumentException("Lock '" + name + "' timeout must not be negative, got " + timeout);
		}
		if (maxHold != null && (maxHold.isNegative() || maxHold.isZero())) {
			throw new IllegalArgumentException("Lock '" + name + "' maxHold must be positive, got " + maxHold);
		}
		if (minHold != null && minHold.isNegative()) {
			throw new IllegalArgumentException("Lock '" + name + "' minHold must not be negative, got " + minHold
					+ "; leave it unset for none");
		}
		if (minHold != null && maxHold != null && minHold.compareTo(maxHold) > 0) {
			throw new IllegalArgumentException("Lock '" + name + "' minHold " + minHold + " is longer than its maxHold "
					+ maxHold + ": the lock would be taken away before it may be released; lower minHold or raise "
					+ "maxHold");
		}
	}

	/**
	 * Create a request without local hand-off.
	 * @param name the static lock name
	 * @param keys the keys to lock together
	 * @param mode how the lock is shared
	 * @param permits the number of holders allowed in SEMAPHORE mode
	 * @param timeout the longest wait, or {@code null} for the configured default
	 * @param maxHold the longest hold, or {@code null} for the configured default
	 * @param minHold the shortest hold, or {@code null} for none
	 */
	public LockRequest(String name, List<String> keys, LockMode mode, int permits, @Nullable Duration timeout,
			@Nullable Duration maxHold, @Nullable Duration minHold) {
		this(name, keys, mode, permits, timeout, maxHold, minHold, false);
	}

	/**
	 * Create a request without a shortest hold.
	 * @param name the static lock name
	 * @param keys the keys to lock together
	 * @param mode how the lock is shared
	 * @param permits the number of holders allowed in SEMAPHORE mode
	 * @param timeout the longest wait, or {@code null} for the configured default
	 * @param maxHold the longest hold, or {@code null} for the configured default
	 */
	public LockRequest(String name, List<String> keys, LockMode mode, int permits, @Nullable Duration timeout,
			@Nullable Duration maxHold) {
		this(name, keys, mode, permits, timeout, maxHold, null);
	}

	/**
	 * Create a request without a hold cap of its own.
	 * @param name the static lock name
	 * @param keys the keys to lock together
	 * @param mode how the lock is shared
	 * @param permits the number of holders allowed in SEMAPHORE mode
	 * @param timeout the longest wait, or {@code null} for the configured default
	 */
	public LockRequest(String name, List<String> keys, LockMode mode, int permits, @Nullable Duration timeout) {
		this(name, keys, mode, permits, timeout, null, null);
	}

	/**
	 * Start building a request for the given lock name.
	 * @param name the static lock name
	 * @return a builder with mode {@link LockMode#MUTEX}, one permit and the
	 * default timeout
	 */
	public static Builder named(String name) {
		return new Builder(name);
	}

	/**
	 * Copy of this request with the given timeout.
	 * @param timeout the timeout
	 * @return a new request
	 */
	public LockRequest withTimeout(Duration timeout) {
		return new LockRequest(this.name, this.keys, this.mode, this.permits, timeout, this.maxHold, this.minHold,
				this.localHandoff);
	}

	/**
	 * Whether this request passes through the process's local queue: local hand-off
	 * asked for, one key (or none), and a mode that has a single node per holder.
	 * @return whether local hand-off applies
	 */
	public boolean usesLocalHandoff() {
		return this.localHandoff && this.keys.size() < 2 && this.mode != LockMode.SEMAPHORE;
	}

	/**
	 * Builds a {@link LockRequest}.
	 */
	public static final class Builder {

		private final String name;

		private List<String> keys = List.of();

		private LockMode mode = LockMode.MUTEX;

		private int permits = 1;

		private @Nullable Duration timeout;

		private @Nullable Duration maxHold;

		private @Nullable Duration minHold;

		private boolean localHandoff;

		private Builder(String name) {
			this.name = name;
		}

		/**
		 * Lock the given keys together.
		 * @param keys the keys
		 * @return this builder
		 */
		public Builder keys(String... keys) {
			this.keys = Arrays.asList(keys);
			return this;
		}

		/**
		 * Lock the given keys together.
		 * @param keys the keys
		 * @return this builder
		 */
		public Builder keys(List<String> keys) {
			this.keys = keys;
			return this;
		}

		/**
		 * Set the mode.
		 * @param mode the mode
		 * @return this builder
		 */
		public Builder mode(LockMode mode) {
			this.mode = mode;
			return this;
		}

		/**
		 * Set the number of permits for {@link LockMode#SEMAPHORE}.
		 * @param permits the number of permits
		 * @return this builder
		 */
		public Builder permits(int permits) {
			this.permits = permits;
			return this;
		}

		/**
		 * Set the longest wait; {@link Duration#ZERO} tries once.
		 * @param timeout the timeout
		 * @return this builder
		 */
		public Builder timeout(Duration timeout) {
			this.timeout = timeout;
			return this;
		}

		/**
		 * Cap how long the lock may be held: after {@code maxHold} it is taken away
		 * (its node deleted, so the next waiter gets it) and the hold is lost with
		 * {@link LockLossReason#MAX_HOLD_EXCEEDED}. The work itself goes on unless it is
		 * interrupted, so fence its writes.
		 * @param maxHold the cap, positive; one too long to ever run out (such as
		 * {@code ChronoUnit.FOREVER.getDuration()}) means no cap, whatever
		 * {@code zk-lock.max-hold} says
		 * @return this builder
		 */
		public Builder maxHold(Duration maxHold) {
			this.maxHold = maxHold;
			return this;
		}

		/**
		 * Keep the lock at least this long after the grant: when the work releases it
		 * sooner, the release returns at once and the lock stays held (its node kept)
		 * until {@code minHold} has passed since the grant, measured on this process's
		 * monotonic clock, so that a job fired a little later on another instance
		 * finds it taken. The hold ends with the session at the latest.
		 * @param minHold the shortest hold, not negative and not longer than the
		 * {@link #maxHold(Duration) maxHold}
		 * @return this builder
		 */
		public Builder minHold(Duration minHold) {
			this.minHold = minHold;
			return this;
		}

		/**
		 * Keep one node per key for this process and pass the lock between its own
		 * holders without ZooKeeper while the tenure lasts: at most
		 * {@code zk-lock.local-handoff.max-passes} passes, or
		 * {@code zk-lock.local-handoff.max-time}, once another process waits. Holders of
		 * one tenure share its fencing token; every new tenure's token is larger.
		 * SEMAPHORE and several keys ignore it and take nodes of their own.
		 * @param localHandoff whether to hand the lock off locally; {@code false} by
		 * default (strict FIFO across processes, a new token for every holder)
		 * @return this builder
		 */
		public Builder localHandoff(boolean localHandoff) {
			this.localHandoff = localHandoff;
			return this;
		}

		/**
		 * Build the request.
		 * @return the request
		 */
		public LockRequest build() {
			return new LockRequest(this.name, this.keys, this.mode, this.permits, this.timeout, this.maxHold,
					this.minHold, this.localHandoff);
		}

	}

}
