package dev.zklock.schedules;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.History.Fault;
import dev.zklock.schedules.History.Grant;
import dev.zklock.schedules.History.Hold;
import dev.zklock.schedules.History.Op;
import dev.zklock.schedules.History.Outage;
import dev.zklock.schedules.History.Revocation;
import dev.zklock.schedules.History.Outcome;
import dev.zklock.schedules.History.Write;

/**
 * Checks a whole {@link History} against the lock's promises. Pure logic: it reads
 * the record and never talks to ZooKeeper.
 * <ul>
 * <li>No two incompatible holders overlap while both believe they hold, and a
 * semaphore never has more holders than permits. A holder that lost its lock, or
 * whose connection went down while it held, may learn it up to {@link #lossNotice}
 * late (a server that closes a session tells the holder and the next waiter at about
 * the same time); a holder that released on a sound connection has no such grace. An
 * operator's revoke ends a hold when it returns, heard or not.</li>
 * <li>Tokens of exclusive holders of a key grow in grant order.</li>
 * <li>No accepted fenced write is stale: none from a holder after a later holder of
 * the key has written.</li>
 * <li>Every acquisition ends within its timeout plus {@link #deadlineBound}, or within
 * that bound of being given up; none hangs.</li>
 * <li>No acquisition fails but for a connection that is down while it waits (a
 * session that ends is no excuse: the wait joins the queue again), and a fresh grant
 * is held at once unless it is taken away, its connection is down or its process
 * pauses just then (a pause before it is no excuse: the engine confirms its session
 * before it grants).</li>
 * <li>Of two exclusive waiters of one key that asked at least 250 ms apart, the first
 * is granted first, unless a fault or a connection outage came between that was not
 * over 250 ms before the second asked.</li>
 * <li>After the schedule quiesced, no lock node and no registry entry is left.</li>
 * </ul>
 */
final class HistoryChecker {

	/** A broken promise. @param kind which promise @param detail what happened */
	record Violation(String kind, String detail) {

		@Override
		public String toString() {
			return this.kind + ": " + this.detail;
		}

	}

	// how far apart two waiters must ask for their order to be sure: each creates its node a moment after asking
	private static final long FIFO_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

	// Curator tells its connection listeners in no fixed order: the engine may act on an outage a moment before the
	// schedule's own listener records it
	private static final long OUTAGE_NOTICE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

	// a grant may find its connection just gone: the isHeld() check follows the grant by microseconds
	private static final long GRANT_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private final long lossNotice;

	private final long deadlineBound;

	/**
	 * A checker.
	 * @param lossNotice how late a holder may see a loss
	 * @param deadlineBound how far past its deadline an acquisition may end
	 */
	HistoryChecker(Duration lossNotice, Duration deadlineBound) {
		this.lossNotice = lossNotice.toNanos();
		this.deadlineBound = deadlineBound.toNanos();
	}

	List<Violation> check(History history) {
		List<Violation> violations = new ArrayList<>();
		Map<String, List<Hold>> byKey = history.holds()
			.stream()
			.collect(Collectors.groupingBy(Hold::lockKey, TreeMap::new, Collectors.toList()));
		List<Outage> outages = history.outages();
		List<Revocation> revocations = history.revocations();
		byKey.values().forEach((holds) -> checkExclusion(holds, outages, revocations, violations));
		byKey.values().forEach((holds) -> checkTokens(holds, violations));
		checkWrites(history, violations);
		checkOps(history, violations);
		checkGrants(history, violations);
		checkOrder(history, violations);
		history.leftovers().forEach((left) -> violations.add(new Violation("left after quiescence", left)));
		return violations;
	}

	private void checkExclusion(List<Hold> holds, List<Outage> outages, List<Revocation> revocations,
			List<Violation> violations) {
		for (int i = 0; i < holds.size(); i++) {
			Hold a = holds.get(i);
			if (a.mode() == LockMode.SEMAPHORE) {
				checkPermits(a, holds, outages, revocations, violations);
				continue;
			}
			for (int j = i + 1; j < holds.size(); j++) {
				Hold b = holds.get(j);
				if (a.chain() != b.chain() && conflict(a.mode(), b.mode())) {
					long overlap = Math.min(believedEnd(a, outages, revocations), believedEnd(b, outages, revocations))
							- Math.max(a.start(), b.start());
					if (overlap > 0) {
						violations.add(new Violation("overlap",
								describe(a) + " and " + describe(b) + " both held for " + millis(overlap) + " ms"));
					}
				}
			}
		}
	}

	private void checkPermits(Hold at, List<Hold> holds, List<Outage> outages, List<Revocation> revocations,
			List<Violation> violations) {
		Set<Integer> chains = new HashSet<>();
		List<Hold> holding = new ArrayList<>();
		for (Hold other : holds) {
			if (other.mode() == LockMode.SEMAPHORE && other.start() <= at.start()
					&& believedEnd(other, outages, revocations) > at.start() && chains.add(other.chain())) {
				holding.add(other);
			}
		}
		if (holding.size() > at.permits()) {
			violations.add(new Violation("permits exceeded", holding.size() + " holders of " + at.permits()
					+ " permits when " + describe(at) + " was granted: " + holding));
		}
	}

	private void checkTokens(List<Hold> holds, List<Violation> violations) {
		List<Hold> exclusive = holds.stream()
			.filter(Hold::exclusive)
			.sorted(Comparator.comparingLong(Hold::start))
			.toList();
		for (int i = 1; i < exclusive.size(); i++) {
			for (int j = 0; j < i; j++) {
				Hold earlier = exclusive.get(j);
				Hold later = exclusive.get(i);
				if (earlier.chain() != later.chain() && later.token() <= earlier.token()) {
					violations.add(new Violation("token went back", describe(later) + " after " + describe(earlier)));
				}
			}
		}
	}

	private void checkWrites(History history, List<Violation> violations) {
		List<Write> writes = history.writes();
		Map<Integer, Long> grantOf = new TreeMap<>();
		history.holds().forEach((hold) -> grantOf.merge(hold.chain(), hold.start(), Math::min));
		for (Write write : writes) {
			if (!write.accepted()) {
				continue;
			}
			for (Write earlier : writes) {
				if (earlier.accepted() && earlier.chain() != write.chain() && earlier.lockKey().equals(write.lockKey())
						&& earlier.at() < write.at()
						&& grantOf.getOrDefault(earlier.chain(), 0L) > grantOf.getOrDefault(write.chain(), 0L)) {
					violations.add(new Violation("stale write", "step " + write.chain() + " wrote " + write.lockKey()
							+ " with token " + write.token() + " after step " + earlier.chain()
							+ ", granted later, had written with token " + earlier.token()));
				}
			}
		}
	}

	private void checkOps(History history, List<Violation> violations) {
		for (Op op : history.ops()) {
			if (op.outcome() == Outcome.HUNG) {
				violations.add(new Violation("hung", describe(op) + " never ended"));
				continue;
			}
			if (op.timeoutNanos() == History.NO_DEADLINE) {
				checkFailure(history, op, violations);
				continue;
			}
			long bound = (op.givenUp() >= 0) ? op.givenUp() - op.invoked() : op.timeoutNanos();
			long late = (op.completed() - op.invoked()) - bound;
			if (op.outcome() != Outcome.GRANTED && late > this.deadlineBound
					|| op.outcome() == Outcome.GRANTED && op.givenUp() < 0 && late > this.deadlineBound) {
				violations.add(new Violation("deadline", describe(op) + " ended " + millis(late)
						+ " ms after its deadline (bound " + millis(this.deadlineBound) + " ms)"));
			}
			checkFailure(history, op, violations);
		}
	}

	private static void checkFailure(History history, Op op, List<Violation> violations) {
		if (op.outcome() == Outcome.FAILED && !(isConnectionFailure(op.failure())
				&& outageDuring(history, op.client(), op.invoked(), op.completed() + OUTAGE_NOTICE_NANOS))) {
			violations.add(new Violation("failed without a fault", describe(op) + ": " + op.failure()));
		}
	}

	// FIFO: of two exclusive waiters of one key, asked well apart, the first is granted first, unless a fault or a
	// connection outage came between (a waiter whose session ends joins the queue again at its end; one whose
	// connection is down cannot join it yet) and was not over well before the second asked: by then the first has
	// joined again, ahead of the second
	private static void checkOrder(History history, List<Violation> violations) {
		List<Grant> grants = history.grants();
		List<Fault> faults = history.faults();
		List<Outage> outages = history.outages();
		for (Grant first : grants) {
			for (Grant second : grants) {
				if (first.lockKey().equals(second.lockKey()) && second.invoked() - first.invoked() >= FIFO_GAP_NANOS
						&& second.granted() < first.granted()
						&& faults.stream()
							.noneMatch((fault) -> fault.start() <= first.granted() && fault.end() >= first.invoked()
									&& fault.end() + FIFO_GAP_NANOS > second.invoked())
						&& outages.stream()
							.noneMatch((outage) -> outage.start() <= first.granted() && outage.end() >= first.invoked()
									&& outage.end() + FIFO_GAP_NANOS > second.invoked())) {
					violations.add(new Violation("order", "step " + second.id() + " was granted " + first.lockKey()
							+ " before step " + first.id() + ", which asked " + millis(second.invoked() - first.invoked())
							+ " ms earlier"));
				}
			}
		}
	}

	private void checkGrants(History history, List<Violation> violations) {
		for (Hold hold : history.holds()) {
			if (!hold.heldAtGrant() && !takenAway(history, hold) && !outageDuring(history, hold.client(),
					hold.start() - GRANT_SLACK_NANOS, hold.start() + GRANT_SLACK_NANOS) && !pausedAtGrant(history, hold)) {
				violations.add(new Violation("granted but not held", describe(hold)));
			}
		}
	}

	// A hold that its holder saw lost, or whose connection went down while it held (or within the notice after it
	// released: the server may have closed the session before the client heard), may have ended that much earlier
	// An operator's revoke ends a hold when it returns, whether or not its holder hears of it (one cut off cannot):
	// from then on only fencing stands between its writes and the next holder's
	private long believedEnd(Hold hold, List<Outage> outages, List<Revocation> revocations) {
		boolean doubtful = hold.lost() || outages.stream()
			.anyMatch((outage) -> outage.client() == hold.client() && outage.start() >= hold.start()
					&& outage.start() <= hold.end() + this.lossNotice);
		long end = doubtful ? Math.max(hold.start(), hold.end() - this.lossNotice) : hold.end();
		for (Revocation revocation : revocations) {
			if (revocation.lockKey().equals(hold.lockKey()) && revocation.end() >= hold.start()
					&& revocation.end() < end) {
				end = revocation.end();
			}
		}
		return end;
	}

	static boolean conflict(LockMode a, LockMode b) {
		return a == LockMode.MUTEX || b == LockMode.MUTEX || a == LockMode.WRITE || b == LockMode.WRITE;
	}

	private static String describe(Hold hold) {
		return "step " + hold.chain() + " (c" + hold.client() + " " + hold.mode() + " " + hold.lockKey() + " token "
				+ hold.token() + (hold.lost() ? ", lost: " + hold.reason() : "") + ")";
	}

	private static String describe(Op op) {
		return "step " + op.id() + " (c" + op.client() + " " + op.description() + ", " + op.outcome() + ")";
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	// A wait may fail because the connection is down (a deadline while suspended, Curator's retries spent), never
	// because the session changed under it: that wait joins the queue again
	private static boolean isConnectionFailure(String failure) {
		return failure != null && (failure.contains("is unreachable since") || failure.contains("ConnectionLoss"));
	}

	// revoked, its node deleted, or past its maxHold: a take-away may come the moment after the grant
	private static boolean takenAway(History history, Hold hold) {
		return hold.lost() && Set.of("REVOKED", "NODE_DELETED", "MAX_HOLD_EXCEEDED").contains(hold.reason())
				|| history.revocations()
					.stream()
					.anyMatch((revocation) -> revocation.lockKey().equals(hold.lockKey())
							&& revocation.end() >= hold.start() - GRANT_SLACK_NANOS
							&& revocation.start() <= hold.start() + GRANT_SLACK_NANOS);
	}

	// a pause that ends after the grant may have begun after it too; one that ended before it is no excuse
	private static boolean pausedAtGrant(History history, Hold hold) {
		return history.pauses()
			.stream()
			.anyMatch((pause) -> pause.client() == hold.client() && pause.end() >= hold.start()
					&& pause.start() <= hold.start() + GRANT_SLACK_NANOS);
	}

	private static boolean outageDuring(History history, int client, long from, long to) {
		return history.outages()
			.stream()
			.anyMatch((outage) -> outage.client() == client && outage.start() <= to && outage.end() >= from);
	}

}
