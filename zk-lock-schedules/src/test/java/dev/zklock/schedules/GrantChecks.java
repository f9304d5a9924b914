package dev.zklock.schedules;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import dev.zklock.schedules.History.Grant;
import dev.zklock.schedules.History.Hold;
import dev.zklock.schedules.HistoryChecker.Violation;

/**
 * The checks of grants, for {@link HistoryChecker}: a fresh grant is held at once
 * unless it is taken away, its connection is down or its process pauses just then;
 * and exclusive waiters of one key asked well apart are granted in the order they
 * asked, unless a fault, an outage or a deletion of a holder's node came between.
 */
final class GrantChecks {

	// how far apart two waiters must ask for their order to be sure: each creates its node a moment after asking
	private static final long FIFO_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

	// a grant may find its connection just gone: the isHeld() check follows the grant by microseconds
	static final long GRANT_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	// how long after the engine's grant its caller may have it: a thread woken on a loaded machine
	private static final long ANSWER_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(150);

	private GrantChecks() {
	}

	// FIFO: of two exclusive waiters of one key, asked well apart, the first is granted first, unless a fault, a
	// connection outage or a deletion came between (a waiter whose session ends joins the queue again at its end; one
	// whose connection is down cannot join it yet; one whose node a deletion took for its holder's just as it came
	// first joins it again too), or the second was passed the key by a local hand-off, which Tenures bounds; a local
	// waiter whose tenure ended without passing it the key joined the queue again then
	static void checkOrder(History history, Deletions deletions, Tenures tenures, List<Violation> violations) {
		List<Grant> grants = history.grants();
		for (Grant first : grants) {
			for (Grant second : grants) {
				if (first.lockKey().equals(second.lockKey())
						&& second.invoked() - tenures.queuedSince(first) >= FIFO_GAP_NANOS
						&& second.granted() < first.granted() && !disturbed(history, deletions, first, second.invoked())
						&& !tenures.passedAhead(first, second)) {
					violations.add(new Violation("order",
							"step " + second.id() + " was granted " + first.lockKey() + " before step " + first.id()
									+ ", which asked " + HistoryChecker.millis(second.invoked() - first.invoked())
									+ " ms earlier"));
				}
			}
		}
	}

	/**
	 * Whether a fault, a connection outage or a deletion of a node of its key came
	 * while a waiter waited, and was not over well before a moment: it may have sent
	 * the waiter to the back of the queue, or kept it from its place.
	 * @param history the history
	 * @param deletions the deletions
	 * @param waiter the waiter
	 * @param after the moment
	 * @return whether one did
	 */
	static boolean disturbed(History history, Deletions deletions, Grant waiter, long after) {
		return history.faults()
			.stream()
			.anyMatch((fault) -> fault.start() <= waiter.granted() && fault.end() >= waiter.invoked()
					&& fault.end() + FIFO_GAP_NANOS > after)
				|| history.outages()
					.stream()
					.anyMatch((outage) -> outage.start() <= waiter.granted() && outage.end() >= waiter.invoked()
							&& outage.end() + FIFO_GAP_NANOS > after)
				|| deletions.between(waiter.lockKey(), waiter.invoked(), waiter.granted());
	}

	static void checkHeld(History history, Deletions deletions, List<Violation> violations) {
		ToLongFunction<Hold> granted = HistoryChecker.granted(history);
		for (Hold hold : history.holds()) {
			if (!hold.heldAtGrant() && !takenAway(history, deletions, hold) && !reentered(history, hold)
					&& !HistoryChecker.outageDuring(history, hold.client(), hold.start() - GRANT_SLACK_NANOS,
							hold.start() + GRANT_SLACK_NANOS)
					&& !pausedAtGrant(history, hold, granted.applyAsLong(hold))) {
				violations.add(new Violation("granted but not held", HistoryChecker.describe(hold)));
			}
		}
	}

	// revoked, its node deleted (by the revoke API or a plain delete), or past its maxHold: a take-away may come the
	// moment after the grant
	private static boolean takenAway(History history, Deletions deletions, Hold hold) {
		return hold.lost() && Set.of("REVOKED", "NODE_DELETED", "MAX_HOLD_EXCEEDED").contains(hold.reason())
				|| history.revocations()
					.stream()
					.anyMatch((revocation) -> revocation.lockKey().equals(hold.lockKey())
							&& revocation.end() >= hold.start() - GRANT_SLACK_NANOS
							&& revocation.start() <= hold.start() + GRANT_SLACK_NANOS)
				|| deletions.between(hold.lockKey(), hold.start() - GRANT_SLACK_NANOS,
						hold.start() + GRANT_SLACK_NANOS);
	}

	// A re-entry is counted in its thread's slot, without ZooKeeper: re-entering a lock that the thread's outer hold
	// has lost gives a handle that is not held, as the outer one is not
	private static boolean reentered(History history, Hold hold) {
		return history.holds()
			.stream()
			.anyMatch((outer) -> outer.chain() == hold.chain() && outer.lockKey().equals(hold.lockKey())
					&& outer.mode() == hold.mode() && outer.token() == hold.token() && outer.start() < hold.start()
					&& outer.lost() && outer.end() <= hold.start() + GRANT_SLACK_NANOS);
	}

	// A pause that ends after the grant may have begun after it too; one seen well before it is no excuse. The
	// holder asks isHeld() a moment after the caller had the grant (12 ms once in a loaded soak; up to 580 ms, with
	// a stall between, on a machine loaded seven times over its cores), and the caller has its grant a moment after
	// the engine made it (54 ms there, for an asynchronous caller woken after a stall): a pause the detector saw
	// within those moments came after the grant, which the engine could not confirm against it
	private static boolean pausedAtGrant(History history, Hold hold, long granted) {
		return history.pauses()
			.stream()
			.anyMatch((pause) -> pause.client() == hold.client() && pause.end() >= granted - ANSWER_SLACK_NANOS
					&& pause.start() <= hold.start() + GRANT_SLACK_NANOS);
	}

}
