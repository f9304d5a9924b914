package dev.zklock.schedules;

import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
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
 * its holders trust their grants, and the checker must flag them. Every schedule's
 * history is saved under {@code target/schedule-soak/histories};
 * {@code zk-lock.schedules.recheck=<that directory>} runs the checker over them again
 * instead of running schedules. At the end it prints the schedules, operations,
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

	@Test
	void generatedSchedulesKeepEveryPromise() throws Exception {
		String recheck = System.getProperty("zk-lock.schedules.recheck");
		Duration duration = Duration
			.parse("PT" + System.getProperty("zk-lock.schedules.soak-duration", "2h").toUpperCase());
		Long replay = Long.getLong(ScheduleProperty.SEED_PROPERTY);
		// the control: holders that trust their grants, which the checker must flag
		boolean control = Boolean.getBoolean("zk-lock.schedules.soak-control");
		Tally tally = new Tally();
		if (recheck != null) {
			// the checker again over the histories of an earlier soak, as saved
			try (Stream<Path> saved = Files.list(Path.of(recheck))) {
				for (Path file : saved.sorted().toList()) {
					SoakRun run = Serialized.decode(Files.readString(file));
					tally.add(run);
				}
			}
		}
		else {
			ScheduleProperty generator = new ScheduleProperty(ScheduleArbitraries.schedules(List.of(FaultKind.values())),
					Duration.ZERO);
			SplittableRandom seeds = new SplittableRandom();
			Path histories = Files.createDirectories(Path.of("target", "schedule-soak", "histories"));
			long end = System.nanoTime() + duration.toNanos();
			try (ProcessScheduleRunner runner = ProcessScheduleRunner.start(Path.of("target", "schedule-soak"),
					control)) {
				do {
					long seed = (replay != null) ? replay : seeds.nextLong();
					Schedule schedule = generator.generate(seed);
					SoakRun run = new SoakRun(seed, schedule, runner.run(schedule));
					Files.writeString(histories.resolve(String.format("%05d.ser", tally.schedules)),
							Serialized.encode(run));
					tally.add(run);
				}
				while (replay == null && System.nanoTime() < end);
			}
		}
		logger.info(
				"SOAK done: duration={} schedules={} operations={} outcomes={} local passes={} tenures by passes ahead "
						+ "of a waiter={} holders' nodes deleted={} faults={} applied={} violations={}",
				(recheck != null) ? "recheck of " + recheck : duration, tally.schedules, tally.operations,
				tally.outcomes, tally.localPasses, tally.passesAhead, tally.deletions, tally.faults, tally.applied,
				tally.kinds);
		if (control) {
			assertThat(tally.kinds).as("violations of the trusting control").isNotEmpty();
		}
		else {
			assertThat(tally.failures.toString()).isEmpty();
		}
	}

	/**
	 * One schedule of the soak and what its clients saw, saved so that a later checker
	 * can read it again.
	 * @param seed the schedule's seed
	 * @param schedule the schedule
	 * @param history its history
	 */
	record SoakRun(long seed, Schedule schedule, History history) implements Serializable {
	}

	/** The soak's figures. */
	private static final class Tally {

		final Map<String, Integer> faults = new TreeMap<>();

		// as injected: a fault may find nothing to hit, such as a client killed before it
		final Map<String, Integer> applied = new TreeMap<>();

		final List<String> kinds = new ArrayList<>();

		final Map<String, Integer> outcomes = new TreeMap<>();

		final StringBuilder failures = new StringBuilder();

		int schedules;

		int operations;

		int deletions;

		int localPasses;

		// tenures and waiters by the passes made while the waiter was known to wait: the bound put to the test
		final Map<Integer, Integer> passesAhead = new TreeMap<>();

		void add(SoakRun run) {
			List<Violation> violations = RandomScheduleTests.checker.check(run.history());
			this.kinds.addAll(violations.stream().map(Violation::kind).toList());
			run.history().ops().forEach((op) -> this.outcomes.merge(op.outcome().name(), 1, Integer::sum));
			this.schedules++;
			this.operations += run.schedule().steps().size();
			this.deletions += run.history().deletions().size();
			this.localPasses += Tenures.passes(run.history());
			RandomScheduleTests.checker.tenures(run.history())
				.passesAhead()
				.forEach((passes, count) -> this.passesAhead.merge(passes, count, Integer::sum));
			run.schedule().faults().forEach((fault) -> this.faults.merge(fault.kind().name(), 1, Integer::sum));
			run.history()
				.faults()
				.stream()
				.filter(History.Fault::applied)
				.forEach((fault) -> this.applied.merge(fault.kind().name(), 1, Integer::sum));
			logger.info("SOAK seed={} steps={} faults={} violations={}", run.seed(), run.schedule().steps().size(),
					run.schedule().faults().size(), violations.size());
			if (!violations.isEmpty()) {
				String report = "seed " + run.seed() + "\n" + run.schedule() + "\n"
						+ ScheduleReport.describe(run.history()) + "\nviolations: " + violations;
				// at once, not only at the end of a run of hours
				logger.warn("SOAK violation, {}", report);
				this.failures.append('\n').append(report);
			}
		}

	}

}
