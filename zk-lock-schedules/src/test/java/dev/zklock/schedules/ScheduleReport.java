package dev.zklock.schedules;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.schedules.HistoryChecker.Violation;

/**
 * Prints a history for people: one line per event, in time order, with
 * milliseconds from its first event; and a one-line summary per schedule.
 */
final class ScheduleReport {

	private static final Logger logger = LoggerFactory.getLogger(ScheduleReport.class);

	private ScheduleReport() {
	}

	static void log(Schedule schedule, History history, List<Violation> violations) {
		Map<String, Long> outcomes = history.ops()
			.stream()
			.collect(Collectors.groupingBy((op) -> op.outcome().name(), TreeMap::new, Collectors.counting()));
		logger.info("SCHEDULE steps={} faults={} outcomes={} holds={} local passes={} tenures by passes ahead of a "
				+ "waiter={} writes={} deletions={} violations={}", schedule.steps().size(), schedule.faults(), outcomes,
				history.holds().size(), Tenures.passes(history),
				RandomScheduleTests.checker.tenures(history).passesAhead(), history.writes().size(),
				history.deletions().size(), violations.size());
		List<DeadlockChecks.Cycle> cycles = RandomScheduleTests.checker.deadlocks(history).cycles();
		if (!cycles.isEmpty() || !history.deadlockFailures().isEmpty()) {
			logger.info("SCHEDULE deadlocks: cycles={} broken after ms={} victims={}", cycles.size(),
					cycles.stream().map(DeadlockChecks.Cycle::millis).toList(), history.deadlockFailures()
						.stream()
						.map((failure) -> "step " + failure.id() + " c" + failure.client() + " " + failure.lockKey())
						.toList());
		}
		if (!violations.isEmpty()) {
			logger.warn("SCHEDULE violations {}\n{}\n{}", violations, schedule, describe(history));
		}
	}

	static String describe(History history) {
		long origin = Stream
			.of(history.ops().stream().map(History.Op::invoked), history.holds().stream().map(History.Hold::start),
					history.faults().stream().map(History.Fault::start))
			.flatMap(Function.identity())
			.min(Comparator.naturalOrder())
			.orElse(0L);
		record Line(long at, String text) {
		}
		Stream<Line> ops = history.ops()
			.stream()
			.map((op) -> new Line(op.invoked(), "step " + op.id() + " c" + op.client() + " " + op.description() + " -> "
					+ op.outcome() + " after " + ms(op.completed() - op.invoked()) + " ms"
					+ ((op.failure() != null) ? " (" + op.failure() + ")" : "")));
		Stream<Line> holds = history.holds()
			.stream()
			.map((hold) -> new Line(hold.start(), "step " + hold.chain() + " holds " + hold.mode() + " "
					+ hold.lockKey() + " token " + hold.token() + " until +" + ms(hold.end() - origin) + " ms"
					+ (hold.lost() ? " (lost: " + hold.reason() + ")" : "")));
		Stream<Line> faults = history.faults()
			.stream()
			.map((fault) -> new Line(fault.start(), "fault " + fault.kind() + " c" + fault.client() + " until +"
					+ ms(fault.end() - origin) + " ms" + (fault.applied() ? "" : " (not applied)")));
		Stream<Line> deletions = history.deletions()
			.stream()
			.map((deletion) -> new Line(deletion.start(), "deletion of " + deletion.lockKey() + " node "
					+ deletion.node() + " token " + deletion.token() + " until +" + ms(deletion.end() - origin) + " ms"));
		Stream<Line> revocations = history.revocations()
			.stream()
			.map((revocation) -> new Line(revocation.start(), "revoke of " + revocation.lockKey() + " until +"
					+ ms(revocation.end() - origin) + " ms"));
		// a connection's outages and a process's pauses excuse late loss notices: without them a report cannot be read
		Stream<Line> outages = history.outages()
			.stream()
			.map((outage) -> new Line(outage.start(), "c" + outage.client() + " disconnected until "
					+ ((outage.end() == Long.MAX_VALUE) ? "its close" : "+" + ms(outage.end() - origin) + " ms")));
		Stream<Line> pauses = history.pauses()
			.stream()
			.map((pause) -> new Line(pause.start(), "c" + pause.client() + " paused until +"
					+ ms(pause.end() - origin) + " ms"));
		// a nested acquisition's waits, granted ones too, and its deadlock's victims: a cycle cannot be read without them
		Stream<Line> nested = history.nestedWaits()
			.stream()
			.map((wait) -> new Line(wait.start(), "step " + wait.id() + " c" + wait.client() + " thread '"
					+ wait.thread() + "' waits for " + wait.mode() + " " + wait.lockKey() + " until +"
					+ ms(wait.end() - origin) + " ms" + (wait.granted() ? ", granted" : ", not granted")));
		Stream<Line> victims = history.deadlockFailures()
			.stream()
			.map((failure) -> new Line(failure.at(), "step " + failure.id() + " c" + failure.client()
					+ " LockDeadlockException waiting for " + failure.lockKey() + ", members " + failure.members()));
		return Stream.of(ops, holds, faults, deletions, revocations, outages, pauses, nested, victims)
			.flatMap(Function.identity())
			.sorted(Comparator.comparingLong(Line::at))
			.map((line) -> "  +" + ms(line.at() - origin) + " ms " + line.text())
			.collect(Collectors.joining("\n", "history:\n", ""));
	}

	private static long ms(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

}
