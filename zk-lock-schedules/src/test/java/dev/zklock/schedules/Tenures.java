package dev.zklock.schedules;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.History.Ask;
import dev.zklock.schedules.History.Deletion;
import dev.zklock.schedules.History.Grant;
import dev.zklock.schedules.History.Hold;
import dev.zklock.schedules.HistoryChecker.Violation;

/**
 * The checker's rules for local hand-off, for {@link HistoryChecker}. A tenure is
 * what the holds of one client's steps with local hand-off of one key in one mode
 * that share a token are: one node of that client in the key's queue, passed from
 * one local holder to the next without ZooKeeper. Its holders' tokens are equal, as
 * the engine promises; every other holder's is larger.
 * <ul>
 * <li>Two exclusive holders may have equal tokens only when they hold one tenure, one
 * after the other, with no holder of another token granted between them. A pass its
 * client could not know was stale (the tenure's node deleted or revoked unheard)
 * holds nothing in the checker's eyes, and is exempt ({@link HistoryChecker}).</li>
 * <li>Once a holder of a tenure saw the engine announce its loss, or an operator
 * deleted the tenure's node and its client could hear of it within the loss notice,
 * the tenure holds no more: no holder of it is granted after that.</li>
 * <li>While a waiter of another client, or one of the same client outside the
 * tenure's local queue, waits for the key in an exclusive mode, an exclusive tenure
 * passes on at most {@code maxPasses} times, and not past {@code maxTime} from its
 * grant. The waiter counts as known to the tenure from {@link #KNOWN_NANOS} after it
 * asked, unless a fault, an outage, a deletion of a node of the key, or a pause of the
 * tenure's client came between.</li>
 * <li>A local waiter takes its place in the key's queue when it asks, or when a tenure
 * of its local queue ends without passing it the key, bound or lost: then it joins
 * the queue again, behind the waiters that came meanwhile.</li>
 * <li>Such passes are the only grants that may come ahead of an earlier waiter
 * ({@link GrantChecks#checkOrder}), with a tenure's first grant at the place of a
 * local waiter of its own that asked earlier and left; within one local queue
 * waiters are granted in the order they asked.</li>
 * </ul>
 */
final class Tenures {

	// how long after a waiter asked the tenure surely knows it waits: its node is created, the tenure's watch fires
	// and the queue is listed again, a few milliseconds apart; and a pass decided just before is seen by its holder
	// a moment later
	static final long KNOWN_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

	/**
	 * One tenure.
	 * @param client the client
	 * @param lockKey the lock and key
	 * @param mode the mode
	 * @param token the tenure node's creation zxid, every holder's token
	 * @param holds the outer hold of each of its steps, in grant order: the first
	 * granted through ZooKeeper, the others passed on
	 */
	record Tenure(int client, String lockKey, LockMode mode, long token, List<Hold> holds) {

		boolean exclusive() {
			return this.mode == LockMode.MUTEX || this.mode == LockMode.WRITE;
		}

		List<Hold> passes() {
			return this.holds.subList(1, this.holds.size());
		}

		// whether an acquisition waited in this tenure's local queue
		boolean queues(@Nullable Ask ask) {
			return ask != null && ask.localHandoff() && ask.client() == this.client
					&& ask.lockKey().equals(this.lockKey) && ask.mode() == this.mode;
		}

		@Override
		public String toString() {
			return "the tenure of c" + this.client + " " + this.mode + " " + this.lockKey + " token " + this.token;
		}

	}

	private final History history;

	private final Deletions deletions;

	private final int maxPasses;

	private final long maxTime;

	private final long lossNotice;

	private final Map<Integer, Ask> asks = new LinkedHashMap<>();

	private final List<Tenure> tenures = new ArrayList<>();

	// the tenure of each step's outer hold of a key: chain/lockKey
	private final Map<String, Tenure> ofStep = new LinkedHashMap<>();

	Tenures(History history, Deletions deletions, int maxPasses, long maxTime, long lossNotice) {
		this.history = history;
		this.deletions = deletions;
		this.maxPasses = maxPasses;
		this.maxTime = maxTime;
		this.lossNotice = lossNotice;
		history.asks().forEach((ask) -> this.asks.put(ask.id(), ask));
		for (Tenure tenure : of(history)) {
			this.tenures.add(tenure);
			tenure.holds().forEach((hold) -> this.ofStep.put(step(hold.chain(), hold.lockKey()), tenure));
		}
	}

	/**
	 * The tenures of a history.
	 * @param history the history
	 * @return its tenures, each with one hold at least
	 */
	static List<Tenure> of(History history) {
		Map<Integer, Ask> asks = new LinkedHashMap<>();
		history.asks().forEach((ask) -> asks.put(ask.id(), ask));
		Map<String, Hold> outer = new LinkedHashMap<>();
		for (Hold hold : history.holds()) {
			Ask ask = asks.get(hold.chain());
			if (ask != null && ask.localHandoff() && ask.lockKey().equals(hold.lockKey()) && ask.mode() == hold.mode()) {
				// a re-entry of the same lock is a hold of the same step: the outer one is the step's
				outer.merge(step(hold.chain(), hold.lockKey()), hold, (a, b) -> (a.start() <= b.start()) ? a : b);
			}
		}
		Map<String, List<Hold>> byTenure = new LinkedHashMap<>();
		outer.values()
			.forEach((hold) -> byTenure.computeIfAbsent(
					hold.client() + "/" + hold.lockKey() + "/" + hold.mode() + "/" + hold.token(),
					(k) -> new ArrayList<>()).add(hold));
		List<Tenure> tenures = new ArrayList<>();
		for (List<Hold> holds : byTenure.values()) {
			holds.sort(Comparator.comparingLong(Hold::start));
			Hold first = holds.get(0);
			tenures.add(new Tenure(first.client(), first.lockKey(), first.mode(), first.token(), List.copyOf(holds)));
		}
		return tenures;
	}

	/**
	 * How many grants of a history were local passes (READ admissions included).
	 * @param history the history
	 * @return the passes
	 */
	static int passes(History history) {
		return of(history).stream().mapToInt((tenure) -> tenure.passes().size()).sum();
	}

	/**
	 * Whether two exclusive holds of a key may have equal tokens: of one tenure, with
	 * no holder of another token granted between them.
	 * @param earlier the one granted first
	 * @param later the other
	 * @param ofKey every hold of the key
	 * @return whether they may
	 */
	boolean consecutive(Hold earlier, Hold later, List<Hold> ofKey) {
		Tenure tenure = this.ofStep.get(step(earlier.chain(), earlier.lockKey()));
		return tenure != null && tenure == this.ofStep.get(step(later.chain(), later.lockKey()))
				&& earlier.token() == tenure.token() && later.token() == tenure.token()
				&& ofKey.stream()
					.noneMatch((other) -> other.token() != tenure.token() && other.start() > earlier.start()
							&& other.start() < later.start());
	}

	/**
	 * When a waiter took its place in the key's queue: as it asked, or, for a local
	 * waiter, when a tenure of its own local queue ended without passing it the key
	 * (its bound reached, or lost): its waiters then join the queue again, behind
	 * every waiter that came meanwhile.
	 * @param waiter the waiter
	 * @return the moment
	 */
	long queuedSince(Grant waiter) {
		Ask ask = this.asks.get(waiter.id());
		long since = waiter.invoked();
		for (Tenure tenure : this.tenures) {
			long end = tenure.holds().get(tenure.holds().size() - 1).end();
			if (tenure.queues(ask) && tenure.holds().stream().noneMatch((hold) -> hold.chain() == waiter.id())
					&& end > since && end < waiter.granted()) {
				since = end;
			}
		}
		return since;
	}

	/**
	 * Whether a hold was passed on within its tenure, rather than granted through
	 * ZooKeeper.
	 * @param hold the hold
	 * @return whether it was
	 */
	boolean isPass(Hold hold) {
		Tenure tenure = this.ofStep.get(step(hold.chain(), hold.lockKey()));
		return tenure != null && hold.token() == tenure.token() && tenure.holds().get(0).chain() != hold.chain();
	}

	/**
	 * The hold of a tenure's first holder, granted through ZooKeeper, whose token
	 * every pass of the tenure shares.
	 * @param hold a hold
	 * @return the first hold of its tenure, or the hold itself outside any tenure
	 */
	Hold first(Hold hold) {
		Tenure tenure = this.ofStep.get(step(hold.chain(), hold.lockKey()));
		return (tenure != null) ? tenure.holds().get(0) : hold;
	}

	/**
	 * Whether a grant that came ahead of an earlier waiter's was a local pass of a
	 * tenure outside that waiter's local queue ({@link #check} bounds them), or the
	 * tenure's first grant, at the place in the queue of a local waiter of its own that
	 * asked before the earlier waiter and left without the lock while it still waited.
	 * @param first the earlier waiter
	 * @param second the grant ahead of it
	 * @return whether it was
	 */
	boolean passedAhead(Grant first, Grant second) {
		Tenure tenure = this.ofStep.get(step(second.id(), second.lockKey()));
		if (tenure == null || tenure.queues(this.asks.get(first.id()))) {
			return false;
		}
		if (tenure.holds().get(0).chain() != second.id()) {
			return true;
		}
		return this.asks.values()
			.stream()
			.anyMatch((ask) -> tenure.queues(ask) && !ask.granted() && ask.invoked() < first.invoked()
					&& ask.completed() >= second.invoked());
	}

	/**
	 * Flag grants of tenures that had ended, and passes past the bounds.
	 * @param violations where to add what is found
	 */
	void check(List<Violation> violations) {
		for (Tenure tenure : this.tenures) {
			checkLost(tenure, violations);
			this.history.grants().forEach((waiter) -> checkBounds(tenure, waiter, violations));
		}
	}

	// Any loss the engine announced to a holder ends its tenure for every holder, and so does a deletion of its node
	// that its client could hear of. A holder granted on the tenure before it ended may see its grant a moment after
	// another holder saw the loss; one that did not hold at once is no danger
	private void checkLost(Tenure tenure, List<Violation> violations) {
		for (Hold later : tenure.holds()) {
			if (!later.heldAtGrant()) {
				continue;
			}
			for (Hold lost : tenure.holds()) {
				if (lost.lost() && announced(lost.reason())
						&& later.start() > lost.end() + GrantChecks.GRANT_SLACK_NANOS) {
					violations.add(new Violation("granted after its tenure was lost", HistoryChecker.describe(later) + " was granted "
							+ HistoryChecker.millis(later.start() - lost.end()) + " ms after " + HistoryChecker.describe(lost)
							+ " saw the loss of " + tenure));
				}
			}
			for (Deletion deletion : this.history.deletions()) {
				if (deletion.lockKey().equals(tenure.lockKey()) && deletion.token() == tenure.token()
						&& later.start() > deletion.end() + this.lossNotice && !this.deletions.unheard(later, deletion)) {
					violations.add(new Violation("granted after its tenure was lost", HistoryChecker.describe(later) + " was granted "
							+ HistoryChecker.millis(later.start() - deletion.end()) + " ms after the node of " + tenure
							+ " was deleted"));
				}
			}
		}
	}

	// what the engine announced, rather than what a holder's isHeld() said: a connection in doubt comes back
	private static boolean announced(@Nullable String reason) {
		return reason != null && !reason.equals(HeldLock.NOT_HELD);
	}

	private void checkBounds(Tenure tenure, Grant waiter, List<Violation> violations) {
		long grant = tenure.holds().get(0).start();
		List<Hold> passes = passesAhead(tenure, waiter);
		for (Hold pass : passes) {
			if (pass.start() - grant > this.maxTime + KNOWN_NANOS) {
				violations.add(new Violation("hand-off past its max-time", HistoryChecker.describe(pass) + " was passed "
						+ HistoryChecker.millis(pass.start() - grant) + " ms after the grant of " + tenure
						+ " (max-time " + HistoryChecker.millis(this.maxTime) + " ms) while step " + waiter.id()
						+ " waited"));
			}
		}
		if (passes.size() > this.maxPasses) {
			violations.add(new Violation("hand-off past its bound", tenure + " passed on " + passes.size()
					+ " times (max-passes " + this.maxPasses + ") while step " + waiter.id() + " waited: "
					+ passes.stream().map(HistoryChecker::describe).toList()));
		}
	}

	// The passes of an exclusive tenure while a waiter outside its local queue was known to wait for the key
	private List<Hold> passesAhead(Tenure tenure, Grant waiter) {
		List<Hold> passes = new ArrayList<>();
		if (!tenure.exclusive() || !waiter.lockKey().equals(tenure.lockKey())
				|| tenure.queues(this.asks.get(waiter.id()))) {
			return passes;
		}
		long queued = queuedSince(waiter);
		for (Hold pass : tenure.passes()) {
			if (pass.start() > queued + KNOWN_NANOS && pass.start() < waiter.granted()
					&& !GrantChecks.disturbed(this.history, this.deletions, waiter, pass.start())
					&& !paused(tenure.client(), waiter.invoked(), pass.start())) {
				passes.add(pass);
			}
		}
		return passes;
	}

	/**
	 * How far the bound of passes was put to the test: for every tenure and waiter
	 * outside its local queue, the passes the tenure made while that waiter was known
	 * to wait.
	 * @return how many such pairs had that many passes, by the number of passes
	 */
	Map<Integer, Integer> passesAhead() {
		Map<Integer, Integer> counts = new TreeMap<>();
		for (Tenure tenure : this.tenures) {
			for (Grant waiter : this.history.grants()) {
				int passes = passesAhead(tenure, waiter).size();
				if (passes > 0) {
					counts.merge(passes, 1, Integer::sum);
				}
			}
		}
		return counts;
	}

	// a stall of the tenure's process delays what it learns of the queue, until a moment after it
	private boolean paused(int client, long from, long to) {
		return this.history.pauses()
			.stream()
			.anyMatch((pause) -> pause.client() == client && pause.start() <= to && pause.end() >= from
					&& pause.end() + KNOWN_NANOS > to);
	}

	private static String step(int chain, String lockKey) {
		return chain + "/" + lockKey;
	}

}
