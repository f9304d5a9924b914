package dev.zklock.schedules;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.lifecycle.BeforeProperty;

import dev.zklock.schedules.HistoryChecker.Violation;
import dev.zklock.testsupport.InJvmZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Generated schedules of lock operations and in-JVM faults (session expiry on the
 * server and on the client, dropped and swallowed connections, a server restart)
 * against a real server, each checked as a whole history. A fixed seed runs the same
 * schedules in every build; the other property draws fresh ones. A failure prints
 * jqwik's seed, the shrunk schedule, its history and its violations;
 * {@code @Property(seed = ...)} replays the generation. Shrinking runs for
 * {@link #SHRINKING} at most: then every candidate passes and jqwik reports the
 * smallest failure so far (jqwik's own bound would leave its thread running schedules
 * beside the next property).
 */
class RandomScheduleTests {

	static final HistoryChecker checker = new HistoryChecker(Duration.ofMillis(500), Duration.ofMillis(1_500),
			ScheduleClient.MAX_PASSES, ScheduleClient.MAX_TIME);

	/** How long a failure may shrink: a schedule runs for seconds, and may fail only now and then. */
	static final Duration SHRINKING = Duration.ofMinutes(2);

	private static InJvmZooKeeper server;

	private static volatile long firstFailure = -1;

	@BeforeContainer
	static void startServer() {
		server = ScheduleRunner.startServer();
	}

	@AfterContainer
	static void stopServer() {
		server.close();
	}

	@Property(tries = 10, seed = "20261128", shrinking = ShrinkingMode.FULL)
	void fixedSchedulesKeepEveryPromise(@ForAll("schedules") Schedule schedule) throws Exception {
		assertKept(schedule);
	}

	@Property(tries = 10, shrinking = ShrinkingMode.FULL)
	void freshSchedulesKeepEveryPromise(@ForAll("schedules") Schedule schedule) throws Exception {
		assertKept(schedule);
	}

	@Provide
	Arbitrary<Schedule> schedules() {
		return ScheduleArbitraries.schedules();
	}

	@BeforeProperty
	void noFailureYet() {
		firstFailure = -1;
	}

	private static void assertKept(Schedule schedule) throws Exception {
		if (firstFailure >= 0 && System.nanoTime() - firstFailure > SHRINKING.toNanos()) {
			// shrinking had its time: what is left passes, so that jqwik stops and reports the smallest failure
			return;
		}
		History history = new ScheduleRunner(server, false).run(schedule);
		List<Violation> violations = checker.check(history);
		ScheduleReport.log(schedule, history, violations);
		if (!violations.isEmpty() && firstFailure < 0) {
			firstFailure = System.nanoTime();
		}
		assertThat(violations).as(() -> schedule + "\n" + ScheduleReport.describe(history) + "\nviolations:\n  "
				+ violations.stream().map(Violation::toString).collect(Collectors.joining("\n  "))).isEmpty();
	}

}
