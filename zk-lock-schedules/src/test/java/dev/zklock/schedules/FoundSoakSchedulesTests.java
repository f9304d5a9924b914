package dev.zklock.schedules;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.History.Fault;
import dev.zklock.schedules.History.Hold;
import dev.zklock.schedules.History.Outcome;
import dev.zklock.schedules.Schedule.Acquire;
import dev.zklock.schedules.Schedule.Family;
import dev.zklock.schedules.Schedule.FaultKind;
import dev.zklock.schedules.Schedule.FaultStep;
import dev.zklock.schedules.Schedule.Nesting;
import dev.zklock.schedules.Schedule.Step;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Schedules the soak flagged, shrunk by hand and replayed in the soak's setting
 * (client processes, a three-member ensemble, the firewall; root, {@code nft} and
 * {@code setpriv}), with {@code -Psoak} only (docs/failures.md, "Soak").
 */
@Tag("soak")
class FoundSoakSchedulesTests {

	/**
	 * Seed 4660853804639219213 of the soak of 2026-12-02: client 2's WRITE with a READ
	 * to take inside it at half its hold, its session closed by the server (EXPIRE)
	 * 100 ms after client 1 asked for the key, client 1's WRITE granted on that, and
	 * client 2's process killed before the READ was due. The holder saw its WRITE in
	 * doubt at once, but the step recorded its hold only when done with the READ: the
	 * kill left it held until the kill, 374 ms of overlap past the loss notice. Here
	 * client 2 asks 800 ms before client 1 (a fresh client process may take a few
	 * hundred milliseconds over its first step), and holds for 4 s, so that the kill,
	 * 1 s after the expiry, comes well before the READ.
	 */
	@Test
	void seed4660853804639219213HolderKilledAfterItSawItsSessionClosed() throws Exception {
		Schedule schedule = new Schedule(List.of(
				new Step(2, 2, 0, new Acquire(Family.READ_WRITE, List.of("a"), LockMode.WRITE, false, 2_500, 4_000,
						Nesting.READ_IN_WRITE, 0, 0, 0)),
				new Step(1, 2, 800, new Acquire(Family.READ_WRITE, List.of("a"), LockMode.WRITE, true, 2_500, 2_500,
						Nesting.NONE, 0, 0, 0))),
				List.of(new FaultStep(FaultKind.EXPIRE, 2, 900), new FaultStep(FaultKind.KILL, 2, 1_900)));
		History history;
		try (ProcessScheduleRunner runner = ProcessScheduleRunner.start(Path.of("target", "found-soak-schedules"),
				false)) {
			history = runner.run(schedule);
		}
		String report = schedule + "\n" + ScheduleReport.describe(history);
		assertThat(history.faults()).as(report).filteredOn(Fault::applied).extracting(Fault::kind)
			.contains(FaultKind.EXPIRE, FaultKind.KILL);
		long killed = history.faults().stream().filter((fault) -> fault.kind() == FaultKind.KILL).findFirst()
			.orElseThrow().start();
		long asked = history.ops().stream().filter((op) -> op.id() == 1).findFirst().orElseThrow().invoked();
		assertThat(history.ops()).as("client 2 granted before client 1 asks: " + report)
			.anyMatch((op) -> op.id() == 0 && op.outcome() == Outcome.GRANTED && op.completed() < asked);
		assertThat(RandomScheduleTests.checker.check(history)).as(report).isEmpty();
		assertThat(history.holds()).as(report)
			.filteredOn((hold) -> hold.client() == 2)
			.singleElement()
			.satisfies((hold) -> assertThat(hold.lost()).isTrue())
			.satisfies((hold) -> assertThat(hold.reason()).isNotEqualTo(OpenHolds.KILLED))
			.extracting(Hold::end)
			.satisfies((end) -> assertThat(end).isLessThan(killed));
	}

}
