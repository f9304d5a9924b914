package dev.zklock.schedules;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.zklock.schedules.Schedule.FaultKind;

import static dev.zklock.schedules.Gen.weight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The generator API and the seeds: bounds and weights as asked, and a seed draws the
 * same values, and the same schedule, every time, the seed a failure prints
 * included.
 */
class GenTests {

	private static final int SAMPLES = 10_000;

	@Test
	void integersAndListsKeepWithinTheirBoundsAndReachBoth() {
		SplittableRandom random = new SplittableRandom(1);
		Map<Integer, Integer> sizes = new HashMap<>();
		Map<Integer, Integer> values = new HashMap<>();
		Gen<List<Integer>> lists = Gen.integers(-2, 3).listOf(1, 4);
		for (int i = 0; i < SAMPLES; i++) {
			List<Integer> list = lists.next(random);
			sizes.merge(list.size(), 1, Integer::sum);
			list.forEach((value) -> values.merge(value, 1, Integer::sum));
		}
		assertThat(sizes).containsOnlyKeys(1, 2, 3, 4);
		assertThat(values).containsOnlyKeys(-2, -1, 0, 1, 2, 3);
	}

	@Test
	void frequencyDrawsEachValueByItsWeightAndNeverAWeightOfNone() {
		SplittableRandom random = new SplittableRandom(2);
		Gen<String> gen = Gen.frequency(weight(7, "often"), weight(3, "now and then"), weight(0, "never"));
		Map<String, Integer> counts = new HashMap<>();
		for (int i = 0; i < SAMPLES; i++) {
			counts.merge(gen.next(random), 1, Integer::sum);
		}
		assertThat(counts).doesNotContainKey("never");
		assertThat(counts.get("often") * 100.0 / SAMPLES).isBetween(67.0, 73.0);
	}

	@Test
	void orNullDrawsNoneInItsShare() {
		SplittableRandom random = new SplittableRandom(3);
		Gen<Integer> gen = Gen.constant(1).orNull(0.3);
		int none = 0;
		for (int i = 0; i < SAMPLES; i++) {
			none += (gen.next(random) == null) ? 1 : 0;
		}
		assertThat(none * 100.0 / SAMPLES).isBetween(27.0, 33.0);
	}

	@Test
	void aSeedDrawsTheSameScheduleEveryTime() {
		ScheduleProperty property = new ScheduleProperty(ScheduleArbitraries.schedules(), RandomScheduleTests.SHRINKING);
		for (long seed : ScheduleProperty.seeds(RandomScheduleTests.FIXED_SEED, 50)) {
			assertThat(property.generate(seed)).isEqualTo(property.generate(seed));
		}
		assertThat(ScheduleProperty.seeds(RandomScheduleTests.FIXED_SEED, 10))
			.isEqualTo(ScheduleProperty.seeds(RandomScheduleTests.FIXED_SEED, 10))
			.doesNotHaveDuplicates();
		assertThat(ScheduleProperty.seeds(RandomScheduleTests.FIXED_SEED, 10).stream().map(property::generate).distinct())
			.hasSize(10);
	}

	// a failure of the fourth schedule or later: its message names the schedule and the property to draw it again
	@Test
	void theSeedAFailurePrintsDrawsItsScheduleAgain() {
		ScheduleProperty property = new ScheduleProperty(ScheduleArbitraries.schedules(), RandomScheduleTests.SHRINKING);
		List<Schedule> seen = new ArrayList<>();
		ScheduleShrinker.Check failsFromTheFourth = (schedule) -> {
			seen.add(schedule);
			return (seen.size() >= 4 && schedule.faults().stream().anyMatch((fault) -> fault.kind() != FaultKind.DROP))
					? "failed" : null;
		};
		AssertionError failure = catchThrowableOfType(AssertionError.class,
				() -> property.check(RandomScheduleTests.FIXED_SEED, 100, null, failsFromTheFourth));
		Matcher printed = Pattern.compile("schedule (\\d+) of 100 of run seed 20261128 failed; to draw it again, "
				+ "pass -Dzk-lock\\.schedules\\.seed=(-?\\d+)\n").matcher(failure.getMessage());
		assertThat(printed.find()).as(failure.getMessage()).isTrue();
		int index = Integer.parseInt(printed.group(1));
		long seed = Long.parseLong(printed.group(2));
		Schedule failed = seen.get(index - 1);
		assertThat(index).isGreaterThanOrEqualTo(4);
		assertThat(property.generate(seed)).isEqualTo(failed);
		assertThat(failure.getMessage()).endsWith("as drawn:\n" + failed);
		// and with the property, the run draws that schedule only
		seen.clear();
		catchThrowableOfType(AssertionError.class, () -> property.check(0, 100, seed, (schedule) -> {
			seen.add(schedule);
			return (seen.size() == 1) ? "failed" : null;
		}));
		assertThat(seen.get(0)).isEqualTo(failed);
	}

}
