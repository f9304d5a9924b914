package dev.zklock.schedules;

import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.zklock.schedules.History.Candidacy;
import dev.zklock.schedules.History.Term;
import dev.zklock.schedules.History.Write;
import dev.zklock.schedules.HistoryChecker.Violation;

/**
 * The leadership's promises, read from a history's terms, candidacies and the
 * leaders' fenced writes. Pure logic.
 * <ul>
 * <li><b>two leaders</b>: no two clients believe they lead the role at once for
 * longer than the loss notice, unless a fault, an outage or a pause of the one that
 * led first came within the notice of the second one's grant (a cut-off leader
 * believes until it hears; fencing then tells their writes apart).</li>
 * <li><b>stale leader write</b>: no leader's write is accepted after a write of a
 * leader granted later.</li>
 * <li><b>leaderless after yield</b>: once a leader yields (its term ends
 * {@code YIELDED}) while another client is eligible (in the queue, not standing
 * aside) for the next {@link #ELECTION}, some client leads within that time, unless a
 * fault, an outage or a pause came meanwhile.</li>
 * </ul>
 */
final class LeaderChecks {

	/**
	 * How long an election may take once a leader yields: the deletion of its node, the
	 * next candidate's watch and its grant, a few round trips on a loaded machine.
	 */
	static final Duration ELECTION = Duration.ofMillis(1_500);

	private final History history;

	private final long lossNotice;

	LeaderChecks(History history, Duration lossNotice) {
		this.history = history;
		this.lossNotice = lossNotice.toNanos();
	}

	void check(List<Violation> violations) {
		List<Term> terms = this.history.terms()
			.stream()
			.sorted(Comparator.comparingLong(Term::start))
			.toList();
		checkOneLeader(terms, violations);
		checkWrites(terms, violations);
		checkYields(terms, violations);
	}

	private void checkOneLeader(List<Term> terms, List<Violation> violations) {
		for (int i = 0; i < terms.size(); i++) {
			for (int j = i + 1; j < terms.size(); j++) {
				Term first = terms.get(i);
				Term second = terms.get(j);
				long overlap = Math.min(first.end(), second.end()) - second.start();
				if (first.client() != second.client() && first.role().equals(second.role()) && overlap > this.lossNotice
						&& !disturbed(first.client(), second.start() - this.lossNotice,
								second.start() + this.lossNotice)) {
					violations.add(new Violation("two leaders", describe(first) + " and " + describe(second)
							+ " both led for " + millis(overlap)));
				}
			}
		}
	}

	private void checkWrites(List<Term> terms, List<Violation> violations) {
		Map<Long, Long> grantOf = new HashMap<>();
		terms.forEach((term) -> grantOf.merge(term.token(), term.start(), Math::min));
		List<Write> writes = this.history.writes()
			.stream()
			.filter((write) -> write.accepted() && write.lockKey().equals(LeaderSteps.LOCK_KEY)
					&& grantOf.containsKey(write.token()))
			.sorted(Comparator.comparingLong(Write::at))
			.toList();
		for (int i = 0; i < writes.size(); i++) {
			Write write = writes.get(i);
			for (int j = 0; j < i; j++) {
				Write earlier = writes.get(j);
				if (earlier.at() < write.at() && grantOf.get(earlier.token()) > grantOf.get(write.token())) {
					violations.add(new Violation("stale leader write", "step " + write.chain() + " wrote with token "
							+ write.token() + " after step " + earlier.chain() + ", a leader granted later, had "
							+ "written with token " + earlier.token()));
					break;
				}
			}
		}
	}

	private void checkYields(List<Term> terms, List<Violation> violations) {
		long election = ELECTION.toNanos();
		for (Term yielded : terms) {
			if (!yielded.reason().equals("YIELDED")) {
				continue;
			}
			long at = yielded.end();
			Candidacy waiting = this.history.candidacies()
				.stream()
				.filter((candidacy) -> candidacy.client() != yielded.client()
						&& candidacy.role().equals(yielded.role()) && candidacy.start() <= at
						&& candidacy.end() >= at + election)
				.findFirst()
				.orElse(null);
			boolean led = terms.stream()
				.anyMatch((term) -> term.role().equals(yielded.role()) && !term.reason().equals(LeaderSteps.KEPT)
						&& term.start() >= at && term.start() <= at + election);
			if (waiting != null && !led && !disturbed(-1, at - this.lossNotice, at + election)) {
				violations.add(new Violation("leaderless after yield", describe(yielded) + " yielded, and c"
						+ waiting.client() + " waited in the queue, but nobody led for " + millis(election)));
			}
		}
	}

	// Whether a fault, an outage or a pause touched the client (any client for -1), or the server, in the window
	private boolean disturbed(int client, long from, long to) {
		boolean faulted = this.history.faults()
			.stream()
			.anyMatch((fault) -> fault.applied() && (client < 0 || fault.client() < 0 || fault.client() == client)
					&& fault.start() <= to && fault.end() + this.lossNotice >= from);
		boolean down = this.history.outages()
			.stream()
			.anyMatch((outage) -> (client < 0 || outage.client() == client) && outage.start() <= to
					&& outage.end() >= from);
		boolean paused = this.history.pauses()
			.stream()
			.anyMatch((pause) -> (client < 0 || pause.client() == client) && pause.start() <= to
					&& pause.end() >= from);
		return faulted || down || paused;
	}

	private static String describe(Term term) {
		return "c" + term.client() + "'s term of role " + term.role() + " (token " + term.token() + ", "
				+ term.reason() + ")";
	}

	private static String millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos) + " ms";
	}

}
