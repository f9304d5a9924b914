package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

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
		StringBuilder message = new StringBuilder(320).append("Lock '")
			.append(this.name)
			.append("' key '")
			.append(LockPaths.abbreviate(hold.key()))
			.append("' (")
			.append(hold.describeMode())
			.append(", fencing token ")
			.append(hold.fencingToken())
			.append(')');
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

	private String describeKeys() {
		return this.keys.isEmpty() ? "(no key)" : "keys " + this.keys.stream().map(LockPaths::abbreviate).toList();
	}

	private void checkOpen() {
		if (!isAcquired()) {
			throw new IllegalStateException("Lock '" + this.name + "' is not held, so it has no fencing token or node");
		}
	}

}
