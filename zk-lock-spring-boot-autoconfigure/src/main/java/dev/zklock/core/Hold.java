package dev.zklock.core;

import dev.zklock.LockLossReason;

/**
 * One key held by one acquisition: the attempt whose node won, and the registry
 * entry that says whether the connection still vouches for it. Shared by the
 * re-entrant handles of one thread.
 */
final class Hold {

	private final LockRegistry.Entry entry;

	private final NodeAttempt attempt;

	Hold(LockRegistry.Entry entry, NodeAttempt attempt) {
		this.entry = entry;
		this.attempt = attempt;
	}

	LockRegistry.Entry entry() {
		return this.entry;
	}

	NodeAttempt attempt() {
		return this.attempt;
	}

	String key() {
		return this.entry.key();
	}

	LockState state() {
		return this.entry.state();
	}

	long fencingToken() {
		return this.entry.fencingToken();
	}

	String nodePath() {
		return this.entry.node().path();
	}

	LockLossReason lossReason() {
		return this.entry.lossReason();
	}

	/**
	 * The mode as loss messages name it.
	 */
	String describeMode() {
		return (this.entry.thread() != null) ? this.entry.mode().toString() : "asynchronous " + this.entry.mode();
	}

}
