package dev.zklock.schedules;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import dev.zklock.schedules.Schedule.Lead;
import dev.zklock.schedules.Schedule.LeadExit;
import dev.zklock.schedules.Schedule.Step;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the leadership schedules draw, without a server: the fixed seed of the CI
 * budget joins, yields and changes readiness, and a client's leader steps run on one
 * worker, so that they never overlap.
 */
class LeaderSchedulesTests {

	@Test
	void theFixedSeedOfTheCiBudgetJoinsYieldsAndChangesReadiness() {
		ScheduleProperty property = new ScheduleProperty(ScheduleArbitraries.schedules(), Duration.ZERO);
		List<Step> leaderSteps = ScheduleProperty.seeds(RandomScheduleTests.FIXED_SEED, RandomScheduleTests.TRIES)
			.stream()
			.map(property::generate)
			.flatMap((schedule) -> schedule.steps().stream())
			.filter((step) -> step.op() instanceof Lead)
			.toList();
		assertThat(leaderSteps).extracting((step) -> ((Lead) step.op()).exit())
			.contains(LeadExit.YIELD, LeadExit.READINESS);
		assertThat(leaderSteps).extracting(Step::client).contains(0, 1, 2);
	}

	@Test
	void aClientsLeaderStepsRunOnOneWorker() {
		SplittableRandom random = new SplittableRandom(43);
		for (int i = 0; i < 50; i++) {
			Schedule schedule = LeaderSchedules.schedules(Schedule.FaultKind.inJvm()).next(random);
			assertThat(schedule.steps()).filteredOn((step) -> step.op() instanceof Lead)
				.isNotEmpty()
				.allMatch((step) -> step.worker() == LeaderSchedules.LEADER_WORKER);
			assertThat(schedule.faults()).hasSizeLessThanOrEqualTo(2);
		}
	}

}
