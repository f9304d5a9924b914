package dev.zklock.schedules;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.zklock.schedules.History.Fault;
import dev.zklock.schedules.History.Hold;
import dev.zklock.schedules.History.Op;
import dev.zklock.schedules.HistoryChecker.Violation;
import dev.zklock.schedules.Schedule.FaultKind;

/**
 * The checker's rules for client processes stopped with {@code SIGSTOP} in the soak.
 * A stopped process does nothing until it runs again, and what it does then is for
 * the fenced store to refuse: its holds end, for the overlap, when the stop begins,
 * and its waits get the stop added to their deadline. But one that runs again after
 * a stop past its session must see its loss within the notice: its pause detector
 * sees the stop.
 * <p>
 * A process that stalls on its own, its threads kept off the CPU by a loaded
 * machine, is stopped as surely for as long: its pause clock records the gap
 * ({@link History.Pause}), and its waits get that added too. A gap that a simulated
 * pause fault made is no stall: the process ran all along.
 */
final class Stops {

	private final List<Fault> stops;

	private final long lossNotice;

	// stops and stalls, each a client and an interval, for the deadlines
	private final List<History.Pause> stalls = new ArrayList<>();

	Stops(History history, long lossNotice) {
		this.stops = history.faults()
			.stream()
			.filter((fault) -> fault.applied() && (fault.kind() == FaultKind.STOP_WITHIN_SESSION
					|| fault.kind() == FaultKind.STOP_PAST_SESSION))
			.toList();
		this.lossNotice = lossNotice;
		List<Fault> simulated = history.faults()
			.stream()
			.filter((fault) -> fault.applied() && (fault.kind() == FaultKind.PAUSE_WITHIN_SESSION
					|| fault.kind() == FaultKind.PAUSE_PAST_SESSION))
			.toList();
		this.stops.forEach((stop) -> this.stalls.add(new History.Pause(stop.client(), stop.start(), stop.end())));
		for (History.Pause pause : history.pauses()) {
			boolean faked = simulated.stream()
				.anyMatch((fault) -> fault.client() == pause.client() && fault.start() < pause.end()
						&& pause.start() < fault.end());
			if (!faked) {
				this.stalls.add(pause);
			}
		}
		this.stalls.sort(Comparator.comparingLong(History.Pause::start));
	}

	/**
	 * When a hold ends for the overlap, its process's stops considered.
	 * @param hold the hold
	 * @param end when it ends otherwise
	 * @return the start of the first stop within it, or {@code end}
	 */
	long believedEnd(Hold hold, long end) {
		long believed = end;
		for (Fault stop : this.stops) {
			if (stop.client() == hold.client() && stop.start() >= hold.start() && stop.start() < believed) {
				believed = stop.start();
			}
		}
		return believed;
	}

	/**
	 * How long an operation's process was stopped or stalled while it ran, each
	 * moment counted once.
	 * @param op the operation
	 * @return nanoseconds
	 */
	long stopped(Op op) {
		long stopped = 0;
		long covered = op.invoked();
		for (History.Pause stall : this.stalls) {
			if (stall.client() == op.client()) {
				long from = Math.max(stall.start(), covered);
				long to = Math.min(stall.end(), op.completed());
				if (to > from) {
					stopped += to - from;
					covered = to;
				}
			}
		}
		return stopped;
	}

	/**
	 * Flag holds that went on past the notice after a stop past their session.
	 * @param holds every hold
	 * @param violations where to add
	 */
	void check(List<Hold> holds, List<Violation> violations) {
		for (Fault stop : this.stops) {
			for (Hold hold : holds) {
				if (stop.kind() == FaultKind.STOP_PAST_SESSION && stop.client() == hold.client()
						&& hold.start() < stop.start() && hold.end() > stop.end() + this.lossNotice) {
					violations.add(new Violation("held after a stop",
							"step " + hold.chain() + " (c" + hold.client() + " " + hold.lockKey() + " token "
									+ hold.token() + ") still believed it held "
									+ (hold.end() - stop.end()) / 1_000_000 + " ms after a stop past its session"));
				}
			}
		}
	}

}
