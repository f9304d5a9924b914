package dev.zklock.schedules;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.schedules.HistoryChecker.Violation;
import dev.zklock.testsupport.ClassFixture;
import dev.zklock.testsupport.InJvmZooKeeper;

/**
 * Generated schedules of lock operations and in-JVM faults (session expiry on the
 * server and on the client, dropped and swallowed connections, a server restart)
 * against a real server, each checked as a whole history. A fixed seed runs the same
 * schedules in every build; the other test draws fresh ones. A failure prints the
 * schedule's seed as {@code -Dzk-lock.schedules.seed=<seed>}, which draws it again
 * (see {@link ScheduleProperty}), the shrunk schedule, its history and its
 * violations. Shrinking re-runs candidates on the server for {@link #SHRINKING} at
 * most, then reports the smallest failure so far.
 */
class RandomScheduleTests {

	static final HistoryChecker checker = new HistoryChecker(Duration.ofMillis(500), Duration.ofMillis(1_500),
			ScheduleClient.MAX_PASSES, ScheduleClient.MAX_TIME);

	/** How long a failure may shrink: a schedule runs for seconds, and may fail only now and then. */
	static final Duration SHRINKING = Duration.ofMinutes(2);

	/** The fixed run seed: the same ten schedules in every build. */
	static final long FIXED_SEED = 20261128L;

	/** Schedules per test. */
	static final int TRIES = 10;

	@RegisterExtension
	static final ClassFixture<InJvmZooKeeper> server = ClassFixture.of(ScheduleRunner::startServer);

	private final ScheduleProperty property = new ScheduleProperty(ScheduleArbitraries.schedules(), SHRINKING);

	@Test
	void fixedSchedulesKeepEveryPromise() {
		this.property.check(FIXED_SEED, TRIES, this::failure);
	}

	@Test
	void freshSchedulesKeepEveryPromise() {
		this.property.check(new SplittableRandom().nextLong(), TRIES, this::failure);
	}

	private @Nullable String failure(Schedule schedule) throws Exception {
		History history = new ScheduleRunner(server.get(), false).run(schedule);
		List<Violation> violations = checker.check(history);
		ScheduleReport.log(schedule, history, violations);
		if (violations.isEmpty()) {
			return null;
		}
		return ScheduleReport.describe(history) + "\nviolations:\n  "
				+ violations.stream().map(Violation::toString).collect(Collectors.joining("\n  "));
	}

}
