package dev.zklock.schedules;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.Schedule.FaultKind;
import dev.zklock.schedules.Schedule.Nested;
import dev.zklock.schedules.Schedule.Step;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cycles of {@link Cycles} on their own, without a server: each is a ring of
 * nested acquisitions in opposite orders on workers of their own, a fair share of
 * schedules has one, and a seed still draws the schedule it drew before cycles.
 */
class CyclesTests {

	private static final List<Schedule> SCHEDULES = ScheduleArbitrariesTests.sample(ScheduleArbitraries.schedules(),
			1_000);

	@Test
	void aFairShareOfSchedulesHasACycle() {
		long withCycle = SCHEDULES.stream().filter((schedule) -> !nested(schedule).isEmpty()).count();
		assertThat(withCycle).as("schedules of 1,000 with a cycle").isGreaterThanOrEqualTo(150);
		assertThat(SCHEDULES.stream().filter((schedule) -> nested(schedule).size() == 3)).isNotEmpty();
		assertThat(SCHEDULES.stream()
			.flatMap((schedule) -> nested(schedule).stream())
			.map((step) -> ((Nested) step.op()).innerMode())
			.collect(Collectors.toSet())).containsExactlyInAnyOrder(LockMode.MUTEX, LockMode.WRITE, LockMode.READ);
	}

	@Test
	void theFixedSeedsTenSchedulesHaveACycle() {
		long withCycle = ScheduleArbitrariesTests.sample(ScheduleArbitraries.schedules(), RandomScheduleTests.TRIES)
			.stream()
			.filter((schedule) -> !nested(schedule).isEmpty())
			.count();
		assertThat(withCycle).isGreaterThanOrEqualTo(2);
	}

	@Test
	void eachCycleIsARingOfOppositeOrdersOnWorkersOfTheirOwn() {
		for (Schedule schedule : SCHEDULES) {
			List<Step> members = nested(schedule);
			if (members.isEmpty()) {
				continue;
			}
			assertThat(members).hasSizeBetween(2, 3);
			for (int i = 0; i < members.size(); i++) {
				Nested member = (Nested) members.get(i).op();
				Nested next = (Nested) members.get((i + 1) % members.size()).op();
				assertThat(member.innerKey()).as(schedule.toString()).isEqualTo(next.outerKey());
				assertThat(Cycles.KEYS).contains(member.outerKey(), member.innerKey());
				assertThat(member.timeoutMillis())
					.isGreaterThan(ScheduleClient.DEADLOCK_AFTER.plus(DeadlockChecks.BOUND_SLACK).toMillis());
			}
			Set<String> workers = members.stream()
				.map((step) -> step.client() + "/" + step.worker())
				.collect(Collectors.toSet());
			assertThat(workers).hasSize(members.size());
			assertThat(schedule.steps())
				.filteredOn((step) -> !(step.op() instanceof Nested) && !(step.op() instanceof Schedule.DeleteNode)
						&& workers.contains(step.client() + "/" + step.worker()))
				.isEmpty();
		}
	}

	@Test
	void aSeedDrawsTheScheduleItDrewBeforeCycles() {
		List<Schedule> before = ScheduleArbitrariesTests.sample(ScheduleArbitraries.schedules(FaultKind.inJvm()),
				SCHEDULES.size());
		for (int i = 0; i < SCHEDULES.size(); i++) {
			Schedule schedule = SCHEDULES.get(i);
			assertThat(schedule.steps().stream().filter((step) -> !(step.op() instanceof Nested)).toList())
				.isEqualTo(before.get(i).steps());
			assertThat(schedule.faults()).isEqualTo(before.get(i).faults());
		}
	}

	private static List<Step> nested(Schedule schedule) {
		return schedule.steps().stream().filter((step) -> step.op() instanceof Nested).toList();
	}

}
