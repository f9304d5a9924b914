package dev.zklock.schedules;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import net.jqwik.api.Example;
import net.jqwik.api.RandomGenerator;
import net.jqwik.api.Tag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.schedules.HistoryChecker.Violation;
import dev.zklock.schedules.Schedule.FaultKind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soak, run with {@code ./mvnw -Psoak verify}: generated schedules one after the
 * other for {@code zk-lock.schedules.soak-duration} (2h by default), each from a seed
 * of its own that the log prints, and that {@code zk-lock.schedules.seed} replays
 * (the generation, not the timing). With {@code zk-lock.schedules.soak-control=true}
 * its holders trust their grants, and the checker must flag them. At the end it prints the schedules, operations,
 * faults by kind and violations; every violation fails the test with its seed,
 * schedule and history.
 * <p>
 * Unlike the CI budget's, its schedules run on a three-member ensemble with each
 * client in a process of its own, and draw on every fault kind: those of the
 * clients' proxies, {@code kill -9} and {@code SIGSTOP} of a client, a member's or
 * the leader's restart, and the firewall's partitions (the leader cut off, no quorum,
 * a client cut off). It needs root, {@code nft} and {@code setpriv}.
 */
@Tag("soak")
class ScheduleSoakTests {

	private static final Logger logger = LoggerFactory.getLogger(ScheduleSoakTests.class);

	// a jqwik example, not a property: the generator runs on jqwik's thread, the seeds are the soak's own
	@Example
	void generatedSchedulesKeepEveryPromise() throws Exception {
		Duration duration = Duration
			.parse("PT" + System.getProperty("zk-lock.schedules.soak-duration", "2h").toUpperCase());
		Long replay = Long.getLong("zk-lock.schedules.seed");
		// the control: holders that trust their grants, which the checker must flag
		boolean control = Boolean.getBoolean("zk-lock.schedules.soak-control");
		RandomGenerator<Schedule> generator = ScheduleArbitraries.schedules(List.of(FaultKind.values())).generator(1_000);
		Random seeds = new Random();
		Map<String, Integer> faults = new TreeMap<>();
		List<String> kinds = new ArrayList<>();
		Map<String, Integer> outcomes = new TreeMap<>();
		int schedules = 0;
		int operations = 0;
		StringBuilder failures = new StringBuilder();
		long end = System.nanoTime() + duration.toNanos();
		try (ProcessScheduleRunner runner = ProcessScheduleRunner.start(Path.of("target", "schedule-soak"), control)) {
			do {
				long seed = (replay != null) ? replay : seeds.nextLong();
				Schedule schedule = generator.next(new Random(seed)).value();
				History history = runner.run(schedule);
				List<Violation> violations = RandomScheduleTests.checker.check(history);
				kinds.addAll(violations.stream().map(Violation::kind).toList());
				history.ops().forEach((op) -> outcomes.merge(op.outcome().name(), 1, Integer::sum));
				schedules++;
				operations += schedule.steps().size();
				schedule.faults().forEach((fault) -> faults.merge(fault.kind().name(), 1, Integer::sum));
				logger.info("SOAK seed={} steps={} faults={} violations={}", seed, schedule.steps().size(),
						schedule.faults().size(), violations.size());
				if (!violations.isEmpty()) {
					// at once, not only at the end of a run of hours
					logger.warn("SOAK violation, seed {}:\n{}\n{}\nviolations: {}", seed, schedule,
							ScheduleReport.describe(history), violations);
					failures.append("\nseed ").append(seed).append('\n').append(schedule).append('\n')
						.append(ScheduleReport.describe(history)).append("\nviolations: ").append(violations);
				}
			}
			while (replay == null && System.nanoTime() < end);
		}
		logger.info("SOAK done: duration={} schedules={} operations={} outcomes={} faults={} violations={}", duration,
				schedules, operations, outcomes, faults, kinds);
		if (control) {
			assertThat(kinds).as("violations of the trusting control").isNotEmpty();
		}
		else {
			assertThat(failures.toString()).isEmpty();
		}
	}

}
