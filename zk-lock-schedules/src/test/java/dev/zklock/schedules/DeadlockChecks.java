package dev.zklock.schedules;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.zklock.schedules.History.CycleMember;
import dev.zklock.schedules.History.DeadlockFailure;
import dev.zklock.schedules.History.Hold;
import dev.zklock.schedules.History.NestedWait;
import dev.zklock.schedules.HistoryChecker.Violation;

/**
 * The rules of deadlock detection (#42), for {@link HistoryChecker}. The wait-for
 * graph at a moment comes from the history alone: a step waits for a lock and key
 * while a {@link NestedWait} of it runs, and holds one while a {@link Hold} of it
 * runs; it waits for every other step that holds the same key in a conflicting mode
 * (the checker's {@link HistoryChecker#conflict}). A cycle of that graph is a
 * deadlock.
 * <ul>
 * <li>No cycle stays unbroken longer than {@code after} plus {@link #BOUND_SLACK},
 * from the moment its last member began to wait to the first end of a member's wait
 * or of a hold on its edges, unless a fault, an outage or a pause of a member's
 * client (or a fault of the server) came within {@link #BOUND_SLACK} before or
 * during it: the engine searches only while ZooKeeper answers, and publishes
 * again after a connection loss.</li>
 * <li>No {@code LockDeadlockException} comes without a cycle through its victim's
 * wait at that moment (a false positive), unless a fault, an outage or a pause of
 * the client of a member it reports came within {@code after} and
 * {@link #BOUND_SLACK} before it: a client that took its session for expired saw its
 * holds lost while their nodes stayed on the server. Every wait and hold counts until
 * {@code notice} after its recorded end: the verdict commits in ZooKeeper, and the
 * victim's caller has its exception a moment later, by then another member may
 * have seen its own wait end (its record deleted after it was answered) or have
 * begun its release; a history records each end as its caller saw it, not as
 * ZooKeeper applied it.</li>
 * <li>No cycle has two victims: two exceptions whose reports name the same members
 * (process, thread and lock waited for) within {@code after} of each other. A cycle
 * of the same waits formed again would need waits that last {@code after} again
 * before any search.</li>
 * </ul>
 */
final class DeadlockChecks {

	/** How much longer than {@code after} a cycle may stand: the search, the verdict and the notice. */
	static final Duration BOUND_SLACK = Duration.ofSeconds(1);

	private final History history;

	private final long after;

	private final long notice;

	private final List<NestedWait> waits;

	private final List<Hold> holds;

	/**
	 * Rules over a history.
	 * @param history the history
	 * @param after the clients' {@code zk-lock.deadlock-detection.after}
	 * @param notice how late a caller may see what ZooKeeper did, in nanoseconds
	 */
	DeadlockChecks(History history, Duration after, long notice) {
		this.history = history;
		this.after = after.toNanos();
		this.notice = notice;
		this.waits = history.nestedWaits()
			.stream()
			.sorted(Comparator.comparingLong(NestedWait::start))
			.toList();
		this.holds = history.holds();
	}

	/**
	 * A cycle of the history's graph.
	 * @param members the steps, in the order of its edges
	 * @param formed when its last member began to wait
	 * @param broken when a member's wait, or a hold on its edges, first ended
	 */
	record Cycle(List<Integer> members, long formed, long broken) {

		long millis() {
			return TimeUnit.NANOSECONDS.toMillis(this.broken - this.formed);
		}

	}

	void check(List<Violation> violations) {
		if (this.waits.isEmpty() && this.history.deadlockFailures().isEmpty()) {
			return;
		}
		checkUnbroken(violations);
		checkFalsePositives(violations);
		checkVictims(violations);
	}

	/**
	 * Every cycle the history shows, once each, as it formed.
	 * @return the cycles
	 */
	List<Cycle> cycles() {
		List<Cycle> cycles = new ArrayList<>();
		for (NestedWait wait : this.waits) {
			List<Integer> members = cycleThrough(wait.id(), wait.start(), 0);
			// one found already through another member's wait that began at the same moment is the same cycle
			if (members != null && cycles.stream()
				.noneMatch((found) -> Set.copyOf(found.members()).equals(Set.copyOf(members))
						&& found.broken() > wait.start())) {
				cycles.add(new Cycle(members, wait.start(), brokenAt(members, wait.start())));
			}
		}
		return cycles;
	}

	private void checkUnbroken(List<Violation> violations) {
		long bound = this.after + BOUND_SLACK.toNanos();
		for (Cycle cycle : cycles()) {
			if (cycle.broken() - cycle.formed() > bound && !excused(cycle)) {
				violations.add(new Violation("deadlock unbroken", "steps " + cycle.members() + " waited for each other "
						+ "for " + cycle.millis() + " ms (bound " + TimeUnit.NANOSECONDS.toMillis(bound) + " ms)"));
			}
		}
	}

	private void checkFalsePositives(List<Violation> violations) {
		for (DeadlockFailure failure : this.history.deadlockFailures()) {
			if (cycleThrough(failure.id(), failure.at(), this.notice) == null && !excused(failure)) {
				violations.add(new Violation("deadlock without a cycle", "step " + failure.id() + " (c"
						+ failure.client() + ") had a LockDeadlockException waiting for " + failure.lockKey()
						+ ", and no cycle through its wait was under way then; it reported " + failure.members()));
			}
		}
	}

	private void checkVictims(List<Violation> violations) {
		Map<Set<CycleMember>, List<DeadlockFailure>> byCycle = new LinkedHashMap<>();
		this.history.deadlockFailures()
			.stream()
			.sorted(Comparator.comparingLong(DeadlockFailure::at))
			.forEach((failure) -> byCycle.computeIfAbsent(Set.copyOf(failure.members()), (members) -> new ArrayList<>())
				.add(failure));
		for (List<DeadlockFailure> failures : byCycle.values()) {
			for (int i = 1; i < failures.size(); i++) {
				DeadlockFailure first = failures.get(i - 1);
				DeadlockFailure second = failures.get(i);
				if (first.id() != second.id() && second.at() - first.at() <= this.after) {
					violations.add(new Violation("two victims of one cycle", "steps " + first.id() + " and "
							+ second.id() + " both had a LockDeadlockException for the cycle of " + first.members()
							+ ", " + TimeUnit.NANOSECONDS.toMillis(second.at() - first.at()) + " ms apart"));
				}
			}
		}
	}

	// A path of the graph at a moment from a step back to itself, or null; each wait and hold counts until `widen`
	// after its end
	private @Nullable List<Integer> cycleThrough(int step, long at, long widen) {
		List<Integer> path = new ArrayList<>();
		path.add(step);
		return search(step, at, widen, path, new HashSet<>()) ? path : null;
	}

	private boolean search(int from, long at, long widen, List<Integer> path, Set<Integer> seen) {
		for (int next : blockers(from, at, widen)) {
			if (next == path.get(0)) {
				return true;
			}
			if (seen.add(next)) {
				path.add(next);
				if (search(next, at, widen, path, seen)) {
					return true;
				}
				path.remove(path.size() - 1);
			}
		}
		return false;
	}

	// The steps that hold what a step waits for at a moment, in a conflicting mode
	private Set<Integer> blockers(int step, long at, long widen) {
		Set<Integer> blockers = new TreeSet<>();
		for (NestedWait wait : this.waits) {
			if (wait.id() != step || !during(wait.start(), wait.end(), at, widen)) {
				continue;
			}
			for (Hold hold : this.holds) {
				if (hold.chain() != step && hold.lockKey().equals(wait.lockKey())
						&& HistoryChecker.conflict(wait.mode(), hold.mode())
						&& during(hold.start(), hold.end(), at, widen)) {
					blockers.add(hold.chain());
				}
			}
		}
		return blockers;
	}

	private static boolean during(long start, long end, long at, long widen) {
		return start <= at && at <= end + widen;
	}

	// The first end, after the cycle formed, of a member's wait or of a hold one member waits for of the next
	private long brokenAt(List<Integer> members, long formed) {
		long broken = Long.MAX_VALUE;
		for (int i = 0; i < members.size(); i++) {
			int waiter = members.get(i);
			int holder = members.get((i + 1) % members.size());
			for (NestedWait wait : this.waits) {
				if (wait.id() == waiter && during(wait.start(), wait.end(), formed, 0)) {
					broken = Math.min(broken, wait.end());
					for (Hold hold : this.holds) {
						if (hold.chain() == holder && hold.lockKey().equals(wait.lockKey())
								&& during(hold.start(), hold.end(), formed, 0)) {
							broken = Math.min(broken, Math.max(hold.end(), formed));
						}
					}
				}
			}
		}
		return broken;
	}

	// A fault, outage or pause of a member's client (or a fault of the server) from BOUND_SLACK before the cycle on
	private boolean excused(Cycle cycle) {
		Set<Integer> clients = new HashSet<>();
		this.waits.stream().filter((wait) -> cycle.members().contains(wait.id())).forEach((wait) -> clients.add(wait.client()));
		return troubled(clients, cycle.formed() - BOUND_SLACK.toNanos(), cycle.broken());
	}

	// The same, of the clients of the members an exception reports, while they could have waited for each other: a
	// client that took its session for expired saw its holds lost while the server kept their nodes, which still
	// block the others and make the cycle the engine found, until the server ends that session
	private boolean excused(DeadlockFailure failure) {
		Set<Integer> clients = new HashSet<>();
		clients.add(failure.client());
		for (NestedWait wait : this.waits) {
			if (failure.members()
				.stream()
				.anyMatch((member) -> member.process() == wait.process() && member.thread().equals(wait.thread()))) {
				clients.add(wait.client());
			}
		}
		return troubled(clients, failure.at() - this.after - BOUND_SLACK.toNanos(), failure.at());
	}

	private boolean troubled(Set<Integer> clients, long from, long to) {
		return this.history.faults()
			.stream()
			.anyMatch((fault) -> fault.applied() && (fault.client() < 0 || clients.contains(fault.client()))
					&& fault.start() <= to && fault.end() >= from)
				|| this.history.outages()
					.stream()
					.anyMatch((outage) -> clients.contains(outage.client()) && outage.start() <= to
							&& outage.end() >= from)
				|| this.history.pauses()
					.stream()
					.anyMatch((pause) -> clients.contains(pause.client()) && pause.start() <= to && pause.end() >= from);
	}

}
