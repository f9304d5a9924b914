package dev.zklock.schedules;

import java.util.ArrayList;
import java.util.List;

import dev.zklock.schedules.Schedule.FaultKind;
import dev.zklock.schedules.Schedule.FaultStep;
import dev.zklock.schedules.Schedule.Lead;
import dev.zklock.schedules.Schedule.LeadExit;
import dev.zklock.schedules.Schedule.Step;

import static dev.zklock.schedules.Gen.weight;

/**
 * Schedules around the leadership of one role: every client joins it early, one or
 * two times, on one worker of its own, so that a queue forms; each leader works, then
 * yields, has its readiness go down and up again, or leads on until its step ends.
 * Random lock operations of the other workers and up to two faults, most aimed at a
 * leader step, come around it.
 */
final class LeaderSchedules {

	/** The share of schedules built around leadership, in percent. */
	static final int LEADERSHIP_PERCENT = 20;

	/** The worker that runs a client's leader steps, one after another. */
	static final int LEADER_WORKER = Schedule.WORKERS - 1;

	private LeaderSchedules() {
	}

	static Gen<Schedule> schedules(List<FaultKind> kinds) {
		Gen<List<Step>> leaders = leaderSteps();
		return leaders.flatMap((lead) -> ScheduleArbitraries.step(null).listOf(2, 8).flatMap((rest) -> {
			List<Step> steps = new ArrayList<>(lead);
			steps.addAll(rest);
			return ScheduleArbitraries.fault(lead, kinds)
				.listOf(0, 2)
				.map((faults) -> new Schedule(List.copyOf(steps), List.<FaultStep>copyOf(faults)));
		}));
	}

	// each client joins in the first second; half of them come back for a second step once their first is over
	private static Gen<List<Step>> leaderSteps() {
		Gen<Long> start = Gen.millis(20, 50);
		Gen<Long> wait = Gen.of(1_500L, 2_500L, 4_000L);
		Gen<Long> work = Gen.of(300L, 600L, 1_000L);
		Gen<LeadExit> exit = Gen.frequency(weight(4, LeadExit.YIELD), weight(4, LeadExit.READINESS),
				weight(2, LeadExit.STAY));
		Gen<Long> aside = Gen.of(200L, 500L, 1_000L);
		Gen<Boolean> again = Gen.booleans();
		return (random) -> {
			List<Step> steps = new ArrayList<>();
			for (int client = 0; client < Schedule.CLIENTS; client++) {
				long at = start.next(random);
				steps.add(new Step(client, LEADER_WORKER, at,
						new Lead(wait.next(random), work.next(random), exit.next(random), aside.next(random))));
				if (again.next(random)) {
					steps.add(new Step(client, LEADER_WORKER, at + 1_000,
							new Lead(wait.next(random), work.next(random), exit.next(random), aside.next(random))));
				}
			}
			return steps;
		};
	}

}
