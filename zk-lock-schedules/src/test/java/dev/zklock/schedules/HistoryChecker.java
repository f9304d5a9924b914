package dev.zklock.schedules;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.History.Deletion;
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
 * operator's revoke ends a hold when it returns, heard or not. A process stopped
 * ({@code SIGSTOP}) holds nothing from the moment it stops ({@link Stops}); one
 * killed holds nothing from the kill.</li>
 * <li>A holder whose node was deleted with a plain ZooKeeper delete sees the loss
 * within the notice, unless its connection was down or cut off then
 * ({@link Deletions}).</li>
 * <li>Tokens of exclusive holders of a key grow in the order their callers had their
 * grants; they are equal only
 * for holders of one tenure of local hand-off, one after the other ({@link Tenures}),
 * which holds no more once any of its holders saw its loss, and passes on ahead of a
 * waiter outside its local queue at most {@code maxPasses} times, within
 * {@code maxTime}.</li>
 * <li>No accepted fenced write is stale: none from a holder after a later holder of
 * the key has written. A local pass granted after its tenure's node was deleted
 * unheard writes with the tenure's token, and stands where the tenure's first
 * holder does.</li>
 * <li>Every acquisition ends within its timeout plus {@link #deadlineBound}, or within
 * that bound of being given up, its process's stops and stalls added ({@link Stops}); none hangs.</li>
 * <li>No acquisition fails but for a connection that is down while it waits (a
 * session that ends is no excuse: the wait joins the queue again), or, for a nested
 * single try, while a fault keeps the server's answers from it or when the server
 * does not answer within the try's grace; and a fresh grant
 * is held at once unless it is taken away, its connection is down or its process
 * pauses just then (a pause before it is no excuse: the engine confirms its session
 * before it grants).</li>
 * <li>Of two exclusive waiters of one key that asked at least 250 ms apart, the first
 * is granted first, unless a fault, a connection outage or a deletion came between
 * that was not over 250 ms before the second asked, or the second was passed the key
 * within a tenure of local hand-off of which the first was no local waiter
 * ({@link GrantChecks}).</li>
 * <li>No deadlock of nested acquisitions stands past {@code after} and a second, none
 * is reported without one, and none has two victims ({@link DeadlockChecks}).</li>
 * <li>One leader of the role at a time, no stale leader's write accepted, and no yield
 * that leaves a waiting candidate without a leader ({@link LeaderChecks}).</li>
 * <li>After the schedule quiesced, no lock node and no registry entry is left.</li>
 * </ul>
 */
final class HistoryChecker {

	// what may end a hold before its holder sees it, or make it doubtful
	private record Excuses(List<Outage> outages, List<Revocation> revocations, Deletions deletions, Stops stops) {
	}

	/** A broken promise. @param kind which promise @param detail what happened */
	record Violation(String kind, String detail) {

		@Override
		public String toString() {
			return this.kind + ": " + this.detail;
		}

	}

	// Curator tells its connection listeners in no fixed order: the engine may act on an outage a moment before the
	// schedule's own listener records it
	private static final long OUTAGE_NOTICE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

	private static final long ANSWER_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(150);

	// how StepRunner reports a nested single try that ended without the lock
	private static final String NOT_ACQUIRED = "not acquired";

	private final long lossNotice;

	private final long deadlineBound;

	private final int maxPasses;

	private final long maxTime;

	/**
	 * A checker.
	 * @param lossNotice how late a holder may see a loss
	 * @param deadlineBound how far past its deadline an acquisition may end
	 * @param maxPasses the clients' bound of a tenure's passes while another waits
	 * @param maxTime the clients' bound of a tenure's time while another waits
	 */
	HistoryChecker(Duration lossNotice, Duration deadlineBound, int maxPasses, Duration maxTime) {
		this.lossNotice = lossNotice.toNanos();
		this.deadlineBound = deadlineBound.toNanos();
		this.maxPasses = maxPasses;
		this.maxTime = maxTime.toNanos();
	}

	/**
	 * The tenures of local hand-off of a history, with the rules this checker reads
	 * them by, for the figures of a run.
	 * @param history the history
	 * @return its tenures
	 */
	Tenures tenures(History history) {
		return new Tenures(history, new Deletions(history, this.lossNotice), this.maxPasses, this.maxTime,
				this.lossNotice);
	}

	List<Violation> check(History history) {
		List<Violation> violations = new ArrayList<>();
		Map<String, List<Hold>> byKey = history.holds()
			.stream()
			.collect(Collectors.groupingBy(Hold::lockKey, TreeMap::new, Collectors.toList()));
		Excuses excuses = new Excuses(history.outages(), history.revocations(), new Deletions(history, this.lossNotice),
				new Stops(history, this.lossNotice));
		byKey.values().forEach((holds) -> checkExclusion(holds, excuses, violations));
		Tenures tenures = new Tenures(history, excuses.deletions(), this.maxPasses, this.maxTime, this.lossNotice);
		ToLongFunction<Hold> granted = granted(history);
		byKey.values().forEach((holds) -> checkTokens(holds, granted, tenures, excuses, violations));
		tenures.check(violations);
		excuses.deletions().check(history.holds(), violations);
		excuses.stops().check(history.holds(), violations);
		checkWrites(history, tenures, excuses.deletions(), violations);
		checkOps(history, excuses.stops(), violations);
		GrantChecks.checkHeld(history, excuses.deletions(), violations);
		GrantChecks.checkOrder(history, excuses.deletions(), tenures, violations);
		deadlocks(history).check(violations);
		new LeaderChecks(history, Duration.ofNanos(this.lossNotice)).check(violations);
		history.leftovers().forEach((left) -> violations.add(new Violation("left after quiescence", left)));
		return violations;
	}

	/**
	 * The rules of deadlock detection over a history, with the clients'
	 * {@code after}, for the checks and the figures of a run.
	 * @param history the history
	 * @return its cycles and rules
	 */
	DeadlockChecks deadlocks(History history) {
		return new DeadlockChecks(history, ScheduleClient.DEADLOCK_AFTER, this.lossNotice);
	}

	private void checkExclusion(List<Hold> holds, Excuses excuses, List<Violation> violations) {
		for (int i = 0; i < holds.size(); i++) {
			Hold a = holds.get(i);
			if (a.mode() == LockMode.SEMAPHORE) {
				checkPermits(a, holds, excuses, violations);
				continue;
			}
			for (int j = i + 1; j < holds.size(); j++) {
				Hold b = holds.get(j);
				if (a.chain() != b.chain() && conflict(a.mode(), b.mode())) {
					long overlap = Math.min(believedEnd(a, excuses), believedEnd(b, excuses))
							- Math.max(a.start(), b.start());
					if (overlap > 0) {
						violations.add(new Violation("overlap",
								describe(a) + " and " + describe(b) + " both held for " + millis(overlap) + " ms"));
					}
				}
			}
		}
	}

	private void checkPermits(Hold at, List<Hold> holds, Excuses excuses, List<Violation> violations) {
		Set<Integer> chains = new HashSet<>();
		List<Hold> holding = new ArrayList<>();
		for (Hold other : holds) {
			if (other.mode() == LockMode.SEMAPHORE && other.start() <= at.start()
					&& believedEnd(other, excuses) > at.start() && chains.add(other.chain())) {
				holding.add(other);
			}
		}
		if (holding.size() > at.permits()) {
			violations.add(new Violation("permits exceeded", holding.size() + " holders of " + at.permits()
					+ " permits when " + describe(at) + " was granted: " + holding));
		}
	}

	// larger in grant order; equal only within a tenure of local hand-off
	// In the order the callers had their grants. A local pass of a tenure whose node was deleted or revoked unheard
	// goes on as its holder would, unaware, and holds nothing in the checker's eyes: fencing refuses its writes once
	// a larger token was written, and takes them before, as the tenure's first holder's (checkWrites). A
	// re-entry has its outer hold's token, and is no grant of its own: it may come after its outer hold was lost
	private void checkTokens(List<Hold> holds, ToLongFunction<Hold> granted, Tenures tenures, Excuses excuses,
			List<Violation> violations) {
		List<Hold> believed = holds.stream()
			.filter((hold) -> !(tenures.isPass(hold) && believedEnd(hold, excuses) <= hold.start()))
			.filter((hold) -> holds.stream()
				.noneMatch((outer) -> outer.chain() == hold.chain() && outer.token() == hold.token()
						&& outer.start() < hold.start()))
			.toList();
		List<Hold> exclusive = believed.stream()
			.filter(Hold::exclusive)
			.sorted(Comparator.comparingLong(granted))
			.toList();
		for (int i = 1; i < exclusive.size(); i++) {
			for (int j = 0; j < i; j++) {
				Hold earlier = exclusive.get(j);
				Hold later = exclusive.get(i);
				if (earlier.chain() != later.chain() && later.token() <= earlier.token()
						&& !(later.token() == earlier.token() && tenures.consecutive(earlier, later, believed))) {
					violations.add(new Violation("token went back", describe(later) + " after " + describe(earlier)));
				}
			}
		}
	}

	private static void checkWrites(History history, Tenures tenures, Deletions deletions, List<Violation> violations) {
		List<Write> writes = history.writes();
		Map<Integer, Long> grantOf = new TreeMap<>();
		history.holds().forEach((hold) -> grantOf.merge(hold.chain(), writesFrom(hold, tenures, deletions), Math::min));
		for (Write write : writes) {
			if (!write.accepted()) {
				continue;
			}
			for (Write earlier : writes) {
				// one token is one node: holders that share it are passes of one tenure, never stale to each other
				if (earlier.accepted() && earlier.chain() != write.chain() && earlier.lockKey().equals(write.lockKey())
						&& earlier.token() != write.token() && earlier.at() < write.at()
						&& grantOf.getOrDefault(earlier.chain(), 0L) > grantOf.getOrDefault(write.chain(), 0L)) {
					violations.add(new Violation("stale write", "step " + write.chain() + " wrote " + write.lockKey()
							+ " with token " + write.token() + " after step " + earlier.chain()
							+ ", granted later, had written with token " + earlier.token()));
				}
			}
		}
	}

	// Where a holder's writes stand in grant order. A pass granted after its tenure's node was deleted while its client
	// could not hear of it sends the tenure's token as the first holder would: fencing takes its writes until a larger
	// token is written, and refuses them after. One that could hear of it is no such pass: its writes stand as its own
	private static long writesFrom(Hold hold, Tenures tenures, Deletions deletions) {
		Deletion deletion = deletions.of(hold);
		return (tenures.isPass(hold) && deletion != null && deletion.start() <= hold.start()
				&& deletions.unheard(hold, deletion)) ? tenures.first(hold).start() : hold.start();
	}

	private void checkOps(History history, Stops stops, List<Violation> violations) {
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
			long late = (op.completed() - op.invoked()) - bound - stops.stopped(op);
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
				&& outageDuring(history, op.client(), op.invoked(), op.completed() + OUTAGE_NOTICE_NANOS))
				&& !(NOT_ACQUIRED.equals(op.failure()) && (faultDuring(history, op) || unanswered(op)))
				&& !outerTakenAway(history, op)) {
			violations.add(new Violation("failed without a fault", describe(op) + ": " + op.failure()));
		}
	}

	// A single try waits 150 ms for ZooKeeper's first answer (Acquisition.ANSWER_GRACE_NANOS), then ends without
	// the lock: an ensemble slowed by a loaded machine may not answer that soon. A try refused outright ends sooner,
	// and one queued behind another waiter, answered, waits up to a second more: neither is excused
	private static boolean unanswered(Op op) {
		long took = op.completed() - op.invoked();
		return took >= ANSWER_GRACE_NANOS && took <= ANSWER_GRACE_NANOS + OUTAGE_NOTICE_NANOS;
	}

	// A nested try fails rightly once its outer lock was revoked or its node deleted, even before the holder hears
	private static boolean outerTakenAway(History history, Op op) {
		if (!op.description().contains(" inside ")) {
			return false;
		}
		List<Hold> outer = history.holds().stream().filter((hold) -> hold.chain() == op.id()).toList();
		return outer.stream()
			.anyMatch((hold) -> history.revocations()
				.stream()
				.anyMatch((revocation) -> revocation.lockKey().equals(hold.lockKey())
						&& revocation.end() >= hold.start() && revocation.start() <= op.completed())
					|| history.deletions()
						.stream()
						.anyMatch((deletion) -> deletion.lockKey().equals(hold.lockKey())
								&& deletion.token() == hold.token() && deletion.start() <= op.completed()));
	}

	// A hold that its holder saw lost, or whose connection went down while it held (or within the notice after it
	// released: the server may have closed the session before the client heard), may have ended that much earlier
	// An operator's revoke ends a hold when it returns, whether or not its holder hears of it (one cut off cannot):
	// from then on only fencing stands between its writes and the next holder's. A deleted node is a loss
	private long believedEnd(Hold hold, Excuses excuses) {
		boolean doubtful = hold.lost() || excuses.deletions().of(hold) != null || excuses.outages().stream()
			.anyMatch((outage) -> outage.client() == hold.client() && outage.start() >= hold.start()
					&& outage.start() <= hold.end() + this.lossNotice);
		long end = doubtful ? Math.max(hold.start(), hold.end() - this.lossNotice) : hold.end();
		for (Revocation revocation : excuses.revocations()) {
			if (revocation.lockKey().equals(hold.lockKey()) && revocation.end() >= hold.start()
					&& revocation.end() < end) {
				end = revocation.end();
			}
		}
		return excuses.stops().believedEnd(hold, excuses.deletions().believedEnd(hold, end));
	}

	/**
	 * When a hold's caller had its grant: a holder records its hold a moment after its
	 * caller had the grant, and that moment may come late (a loaded machine, a process
	 * stopped just then), after the next holder's grant once the first one's session
	 * ended. A step's later holds of a key (re-entries, nested locks) count from their
	 * own start.
	 * @param history the history
	 * @return the moment of each hold
	 */
	static ToLongFunction<Hold> granted(History history) {
		Map<Integer, Long> answered = new HashMap<>();
		history.ops()
			.stream()
			.filter((op) -> op.outcome() == Outcome.GRANTED)
			.forEach((op) -> answered.merge(op.id(), op.completed(), Math::min));
		Map<String, Long> firstStart = new HashMap<>();
		history.holds().forEach((hold) -> firstStart.merge(hold.chain() + "/" + hold.lockKey(), hold.start(), Math::min));
		return (hold) -> (hold.start() == firstStart.get(hold.chain() + "/" + hold.lockKey()))
				? Math.min(hold.start(), answered.getOrDefault(hold.chain(), hold.start())) : hold.start();
	}

	static boolean conflict(LockMode a, LockMode b) {
		return a == LockMode.MUTEX || b == LockMode.MUTEX || a == LockMode.WRITE || b == LockMode.WRITE;
	}

	static String describe(Hold hold) {
		return "step " + hold.chain() + " (c" + hold.client() + " " + hold.mode() + " " + hold.lockKey() + " token "
				+ hold.token() + (hold.lost() ? ", lost: " + hold.reason() : "") + ")";
	}

	private static String describe(Op op) {
		return "step " + op.id() + " (c" + op.client() + " " + op.description() + ", " + op.outcome() + ")";
	}

	static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	// A wait may fail because the connection is down (a deadline while suspended, Curator's retries spent), never
	// because the session changed under it: that wait joins the queue again. A release, bounded by a
	// session and a connection timeout, fails the same way when ZooKeeper does not confirm the delete in time
	private static boolean isConnectionFailure(String failure) {
		return failure != null && (failure.contains("is unreachable since") || failure.contains("ConnectionLoss")
				|| failure.contains("was not confirmed by ZooKeeper within"));
	}

	// A nested single try needs the server's answers: while a fault keeps them from it, before its client's
	// connection is known to be down, it may end without the lock
	private static boolean faultDuring(History history, Op op) {
		return history.faults()
			.stream()
			.anyMatch((fault) -> fault.applied() && (fault.client() == op.client() || fault.client() < 0)
					&& fault.start() <= op.completed() && fault.end() + OUTAGE_NOTICE_NANOS >= op.invoked());
	}

	static boolean outageDuring(History history, int client, long from, long to) {
		return history.outages()
			.stream()
			.anyMatch((outage) -> outage.client() == client && outage.start() <= to && outage.end() >= from);
	}

}
