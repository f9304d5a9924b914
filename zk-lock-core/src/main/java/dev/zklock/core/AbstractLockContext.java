package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockContext;
import dev.zklock.LockLossReason;
import dev.zklock.LockLostException;
import dev.zklock.LockState;
import dev.zklock.core.LockRegistry.Hold;

/**
 * The {@link LockContext} of a lock handle, blocking or asynchronous, over the
 * {@link Hold}s of the keys one acquisition holds: fencing tokens, node paths and
 * whether the keys are still held. A handle supplies its holds and marks itself
 * released.
 */
abstract class AbstractLockContext implements LockContext {

	private static final Logger logger = LoggerFactory.getLogger(AbstractLockContext.class);

	private static final String IN_DOUBT_AFTER_PAUSE = " is in doubt: this process was silent (paused) for longer "
			+ "than is safe for its ZooKeeper session, which may have expired meanwhile. Do not write what it "
			+ "protects now; it is held again once ZooKeeper confirms the lock node";

	private static final String IN_DOUBT_SUSPENDED = " is in doubt: the ZooKeeper connection is suspended, so "
			+ "another process may hold it. Do not write what it protects now; it is held again if the client "
			+ "reconnects with the same session";

	private static final String TAKEN_AWAY = " was taken away: it was held longer than its maxHold, so its node "
			+ "was deleted";

	private static final String GIVEN_UP_AT_SHUTDOWN = " was given up at shutdown: its work did not end within the "
			+ "shutdown's drain timeout (spring.lifecycle.timeout-per-shutdown-phase), so its node was deleted";

	private static final String REVOKED = " was revoked: another client deleted its node (the locks endpoint, "
			+ "LockTemplate.revoke or an operator)";

	private static final String TAKEN_AWAY_ADVICE = " and another process may hold it now. Abandon the work it "
			+ "protects; a resource that checks fencing tokens rejects this holder's late writes";

	private static final String ENDED_BEFORE_EXTENSION = " reached its maxHold, or was released or given up, before "
			+ "it could be extended: it is being taken away";

	private static final String LOST_ADVICE = "): another process may hold it now. Abandon the work it protects; a "
			+ "resource that checks fencing tokens rejects this holder's late writes";

	private final String name;

	private final List<String> keys;

	private final List<Hold> holds;

	private final boolean acquired;

	private final String releasedAdvice;

	private volatile boolean released;

	/**
	 * Create a new context.
	 * @param name the lock name
	 * @param keys the keys requested
	 * @param holds the keys held, in the order they were locked
	 * @param acquired whether the lock was acquired
	 * @param releasedAdvice what {@link #assertHeld()} advises once released
	 */
	AbstractLockContext(String name, List<String> keys, List<Hold> holds, boolean acquired, String releasedAdvice) {
		this.name = name;
		this.keys = keys;
		this.holds = holds;
		this.acquired = acquired;
		this.releasedAdvice = releasedAdvice;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public List<String> keys() {
		return this.keys;
	}

	/**
	 * Whether the lock was acquired within the timeout and is not released yet.
	 * Stays true while the lock is in doubt or lost, until released.
	 * @return whether this handle holds the lock
	 */
	public boolean isAcquired() {
		return this.acquired && !this.released;
	}

	/**
	 * The largest token of the handle's keys: the token of the key locked last.
	 */
	@Override
	public long fencingToken() {
		checkOpen();
		long token = 0;
		for (Hold hold : this.holds) {
			token = Math.max(token, hold.fencingToken());
		}
		return token;
	}

	@Override
	public long fencingToken(@Nullable String key) {
		return hold(key).fencingToken();
	}

	@Override
	public String nodePath() {
		checkOpen();
		if (this.holds.size() != 1) {
			throw new IllegalStateException("Lock '" + this.name + "' covers " + this.holds.size()
					+ " keys, each with its own node; use nodePath(key)");
		}
		return this.holds.get(0).nodePath();
	}

	@Override
	public String nodePath(@Nullable String key) {
		return hold(key).nodePath();
	}

	@Override
	public boolean isHeld() {
		if (!isAcquired()) {
			return false;
		}
		for (Hold hold : this.holds) {
			if (hold.state() != LockState.HELD) {
				return false;
			}
		}
		return true;
	}

	@Override
	public void assertHeld() {
		if (!this.acquired) {
			throw new LockLostException("Lock '" + this.name + "' " + describeKeys()
					+ " was never acquired; check isAcquired() before doing the guarded work", this.name, null);
		}
		if (this.released) {
			throw new LockLostException("Lock '" + this.name + "' " + describeKeys() + " was released already; "
					+ this.releasedAdvice, this.name, null);
		}
		for (Hold hold : this.holds) {
			LockState state = hold.state();
			if (state != LockState.HELD) {
				throw new LockLostException(describeLoss(hold, state), this.name, hold.key());
			}
		}
	}

	/**
	 * Extend the hold of every key, from any thread: each key's maxHold runs from now.
	 */
	@Override
	public void extendMaxHold(Duration maxHold) {
		extend(holdTimers(), maxHold, null);
	}

	/**
	 * The engine's hold timers, which {@link #extendMaxHold(Duration)} re-arms.
	 */
	abstract HoldTimers holdTimers();

	/**
	 * Extend the hold of every key of this handle: each key's maxHold runs from now
	 * (a key taken without one gets one), and when {@code minHold} is given, each
	 * key is kept at least that long from now. A key in doubt is extended too: it may
	 * be held again, and if it is lost instead, the loss is told as usual.
	 * @param timers the engine's hold timers
	 * @param maxHold how long from now the lock may still be held, positive
	 * @param minHold how long from now the lock is kept at least, or {@code null} to
	 * leave the shortest hold as it is
	 * @throws NullPointerException when {@code maxHold} is {@code null}
	 * @throws IllegalArgumentException when a duration is out of range
	 * @throws LockLostException when the lock was never acquired, was released, or
	 * a key is lost or being taken away
	 */
	final void extend(HoldTimers timers, Duration maxHold, @Nullable Duration minHold) {
		checkExtension(maxHold, minHold);
		if (!this.acquired) {
			throw new LockLostException("Lock '" + this.name + "' " + describeKeys()
					+ " was never acquired, so it cannot be extended; check isAcquired() first", this.name, null);
		}
		if (this.released) {
			throw new LockLostException("Lock '" + this.name + "' " + describeKeys() + " was released already, so "
					+ "it cannot be extended; extend it before releasing it", this.name, null);
		}
		for (Hold hold : this.holds) {
			LockState state = hold.state();
			if (!LockRegistry.Entry.OWNED.contains(state)) {
				throw new LockLostException(describeLoss(hold, state), this.name, hold.key());
			}
		}
		Hold ended = timers.extend(this.name, this.holds, maxHold, minHold);
		if (ended != null) {
			LockState state = ended.state();
			String message = LockRegistry.Entry.OWNED.contains(state) ? describeKey(ended)
				.append(ENDED_BEFORE_EXTENSION)
				.append(TAKEN_AWAY_ADVICE)
				.toString() : describeLoss(ended, state);
			throw new LockLostException(message, this.name, ended.key());
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Lock '{}' {} extended: maxHold {} from now{}", this.name, describeKeys(), maxHold,
					(minHold != null) ? ", minHold " + minHold + " from now" : "");
		}
	}

	private void checkExtension(Duration maxHold, @Nullable Duration minHold) {
		if (maxHold == null) {
			throw new NullPointerException("Lock '" + this.name + "': the maxHold to extend it by must not be null; "
					+ "pass how long from now the lock may still be held, such as Duration.ofMinutes(5)");
		}
		if (maxHold.isNegative() || maxHold.isZero()) {
			throw new IllegalArgumentException("Lock '" + this.name + "': the maxHold to extend it by must be "
					+ "positive, got " + maxHold + "; pass how long from now the lock may still be held, such as "
					+ "Duration.ofMinutes(5), or release the lock when its work is done");
		}
		if (minHold != null && minHold.isNegative()) {
			throw new IllegalArgumentException("Lock '" + this.name + "': the minHold to extend it by must not be "
					+ "negative, got " + minHold + "; pass 0 to keep the shortest hold as it is");
		}
		if (minHold != null && minHold.compareTo(maxHold) > 0) {
			throw new IllegalArgumentException("Lock '" + this.name + "': the minHold to extend it by, " + minHold
					+ ", is longer than its maxHold " + maxHold + ": the lock would be taken away before it may be "
					+ "released; lower minHold or raise maxHold");
		}
	}

	/**
	 * The keys held, in the order they were locked.
	 */
	final List<Hold> holds() {
		return this.holds;
	}

	/**
	 * After the release: completes once every key kept for its {@code minHold} is no
	 * longer held.
	 * @return the future, or {@code null} when no key lingers
	 */
	final @Nullable CompletableFuture<Void> lingering() {
		List<CompletableFuture<Void>> ends = null;
		for (Hold hold : this.holds) {
			MinHold minHold = hold.entry().minHold();
			if (minHold != null && minHold.isLingering()) {
				if (ends == null) {
					ends = new ArrayList<>(this.holds.size());
				}
				ends.add(minHold.ended());
			}
		}
		if (ends == null) {
			return null;
		}
		return (ends.size() == 1) ? ends.get(0) : CompletableFuture.allOf(ends.toArray(new CompletableFuture<?>[0]));
	}

	/**
	 * Mark the handle released, once.
	 * @return whether it was acquired and not released yet
	 */
	final boolean markReleased() {
		if (!isAcquired()) {
			return false;
		}
		this.released = true;
		return true;
	}

	private Hold hold(@Nullable String key) {
		checkOpen();
		for (Hold hold : this.holds) {
			if (Objects.equals(hold.key(), key)) {
				return hold;
			}
		}
		throw new IllegalArgumentException("Lock '" + this.name + "' does not cover key '" + LockPaths.abbreviate(key)
				+ "'; it covers " + describeKeys());
	}

	// A StringBuilder, not '+': the first failure after a pause must not spend milliseconds of a resumed
	// process's CPU linking string concatenations (invokedynamic), which '+' does on each site's first use
	private String describeLoss(Hold hold, LockState state) {
		StringBuilder message = describeKey(hold);
		if (state == LockState.IN_DOUBT && hold.inDoubtAfterPause()) {
			return message.append(IN_DOUBT_AFTER_PAUSE).toString();
		}
		if (state == LockState.IN_DOUBT) {
			return message.append(IN_DOUBT_SUSPENDED).toString();
		}
		if (hold.lossReason() == LockLossReason.MAX_HOLD_EXCEEDED) {
			return message.append(TAKEN_AWAY).append(TAKEN_AWAY_ADVICE).toString();
		}
		if (hold.lossReason() == LockLossReason.REVOKED) {
			return message.append(REVOKED).append(TAKEN_AWAY_ADVICE).toString();
		}
		if (hold.lossReason() == LockLossReason.SHUTDOWN) {
			return message.append(GIVEN_UP_AT_SHUTDOWN).append(TAKEN_AWAY_ADVICE).toString();
		}
		return message.append(" was lost (").append(hold.lossReason()).append(LOST_ADVICE).toString();
	}

	// The key as loss messages name it: lock, key, mode and fencing token
	private StringBuilder describeKey(Hold hold) {
		return new StringBuilder(320).append("Lock '")
			.append(this.name)
			.append("' key '")
			.append(LockPaths.abbreviate(hold.key()))
			.append("' (")
			.append(hold.describeMode())
			.append(", fencing token ")
			.append(hold.fencingToken())
			.append(')');
	}

	private String describeKeys() {
		return this.keys.isEmpty() ? "(no key)" : "keys " + this.keys.stream().map(LockPaths::abbreviate).toList();
	}

	private void checkOpen() {
		if (!isAcquired()) {
			throw new IllegalStateException("Lock '" + this.name + "' is not held, so it has no fencing token or node");
		}
	}

}
