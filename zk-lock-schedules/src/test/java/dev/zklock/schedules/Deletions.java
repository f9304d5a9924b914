package dev.zklock.schedules;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.zklock.schedules.History.Deletion;
import dev.zklock.schedules.History.Fault;
import dev.zklock.schedules.History.Hold;
import dev.zklock.schedules.History.Outage;
import dev.zklock.schedules.HistoryChecker.Violation;

/**
 * The rules for holders' nodes deleted with a plain ZooKeeper delete, for
 * {@link HistoryChecker}. A deleted node is a loss like a session's end: its holder
 * must see it within the loss notice, by the engine's watch of the held node (a
 * leader is such a holder). Unlike an operator's revoke, a deletion is not excused
 * merely for having happened: only a holder whose client could not hear of it, its
 * connection down (an outage) or its traffic cut by a fault at the time, is taken to
 * hold no longer from the deletion on, with only fencing between its writes and the
 * next holder's. A deleted hold is matched by its lock, key and token (the deleted
 * node's creation zxid).
 */
final class Deletions {

	private final List<Deletion> deletions;

	private final List<Outage> outages;

	private final List<Fault> faults;

	private final long lossNotice;

	Deletions(History history, long lossNotice) {
		this.deletions = history.deletions();
		this.outages = history.outages();
		this.faults = history.faults();
		this.lossNotice = lossNotice;
	}

	/**
	 * The deletion of a hold's node while it held, if any.
	 * @param hold the hold
	 * @return the deletion, or {@code null}
	 */
	@Nullable Deletion of(Hold hold) {
		for (Deletion deletion : this.deletions) {
			if (deletion.lockKey().equals(hold.lockKey()) && deletion.token() == hold.token()
					&& deletion.start() <= hold.end()) {
				return deletion;
			}
		}
		return null;
	}

	/**
	 * The end a hold's holder may believe in, given the end the other rules allow: the
	 * deletion's, when its holder could not hear of it.
	 * @param hold the hold
	 * @param end the end the other rules allow
	 * @return the end
	 */
	long believedEnd(Hold hold, long end) {
		Deletion deletion = of(hold);
		return (deletion != null && unheard(hold, deletion)) ? Math.min(end, Math.max(hold.start(), deletion.end()))
				: end;
	}

	/**
	 * Every hold whose node was deleted and that its holder, able to hear of it, went
	 * on believing in for longer than the loss notice.
	 * @param holds the holds
	 * @param violations where to add what is found
	 */
	void check(List<Hold> holds, List<Violation> violations) {
		for (Hold hold : holds) {
			Deletion deletion = of(hold);
			if (deletion == null || unheard(hold, deletion)) {
				continue;
			}
			long from = Math.max(hold.start(), deletion.end());
			if (hold.end() - from > this.lossNotice) {
				violations.add(new Violation("deletion unnoticed", HistoryChecker.describe(hold) + " held on for "
						+ TimeUnit.NANOSECONDS.toMillis(hold.end() - from) + " ms after its node " + deletion.node()
						+ " was deleted (notice " + TimeUnit.NANOSECONDS.toMillis(this.lossNotice) + " ms)"));
			}
		}
	}

	/**
	 * Whether a deletion of a key came between two moments: it may send a waiter whose
	 * node it took for a holder's to the back of the queue, or take a grant away at once.
	 * @param lockKey the lock and key
	 * @param from the first moment
	 * @param to the last
	 * @return whether one did
	 */
	boolean between(String lockKey, long from, long to) {
		return this.deletions.stream()
			.anyMatch((deletion) -> deletion.lockKey().equals(lockKey) && deletion.end() >= from
					&& deletion.start() <= to);
	}

	// Down or cut off from the deletion until its notice was due: the watch's event could not reach the holder. A
	// connection swallowed within the session is no outage to Curator, hence the faults
	boolean unheard(Hold hold, Deletion deletion) {
		long due = Math.max(hold.start(), deletion.end()) + this.lossNotice;
		return this.outages.stream()
			.anyMatch((outage) -> outage.client() == hold.client() && outage.start() <= due
					&& outage.end() >= deletion.start())
				|| this.faults.stream()
					.anyMatch((fault) -> fault.applied() && (fault.client() == hold.client() || fault.client() < 0)
							&& fault.start() <= due && fault.end() >= deletion.start());
	}

}
