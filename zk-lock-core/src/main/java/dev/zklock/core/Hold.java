package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import dev.zklock.LockLossReason;
import dev.zklock.annotation.LockMode;

/**
 * One key held by one acquisition: the attempt whose node won, and the registry
 * entry that says whether the connection still vouches for it. Shared by the
 * re-entrant handles of one thread.
 */
final class Hold {

	private final LockRegistry.Entry entry;

	private final NodeAttempt attempt;

	private final PauseGuard pauseGuard;

	Hold(LockRegistry.Entry entry, NodeAttempt attempt, PauseGuard pauseGuard) {
		this.entry = entry;
		this.attempt = attempt;
		this.pauseGuard = pauseGuard;
	}

	LockRegistry.Entry entry() {
		return this.entry;
	}

	NodeAttempt attempt() {
		return this.attempt;
	}

	@Nullable String key() {
		return this.entry.key();
	}

	/**
	 * The registry's state, except that a held key is in doubt after this process
	 * went silent, until ZooKeeper confirms it again.
	 */
	LockState state() {
		LockState state = this.entry.state();
		return (state == LockState.HELD && this.pauseGuard.inDoubt(this.entry)) ? LockState.IN_DOUBT : state;
	}

	/**
	 * Whether the key is in doubt because this process was silent, not because of the
	 * connection.
	 */
	boolean inDoubtAfterPause() {
		return this.entry.state() == LockState.HELD && this.pauseGuard.inDoubt(this.entry);
	}

	long fencingToken() {
		return this.entry.fencingToken();
	}

	String nodePath() {
		return this.entry.node().path();
	}

	@Nullable LockLossReason lossReason() {
		return this.entry.lossReason();
	}

	/**
	 * The mode as loss messages name it.
	 */
	String describeMode() {
		return describeMode(this.entry.mode(), this.entry.thread() != null);
	}

	/**
	 * A mode as messages name it: an asynchronous lock says so.
	 */
	static String describeMode(LockMode mode, boolean blocking) {
		return blocking ? mode.toString() : "asynchronous " + mode;
	}

}
