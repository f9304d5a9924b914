package dev.zklock.schedules;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.Schedule.Acquire;
import dev.zklock.schedules.Schedule.Family;
import dev.zklock.schedules.Schedule.FaultKind;
import dev.zklock.schedules.Schedule.FaultStep;
import dev.zklock.schedules.Schedule.Nesting;
import dev.zklock.schedules.Schedule.Step;
import dev.zklock.schedules.ScheduleShrinker.Check;
import dev.zklock.schedules.ScheduleShrinker.Result;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Delta debugging on a synthetic failure, without a server: a schedule fails when it
 * has an expiry of client 1, a hold of client 0 of at least 400 ms, and any step of
 * client 2. The failures the real server finds run the same code, with seconds per
 * candidate instead of none.
 */
class ScheduleShrinkerTests {

	private static final Acquire LONG_HOLD = new Acquire(Family.MUTEX, List.of("a"), LockMode.MUTEX, false, 2_500,
			1_500, Nesting.NONE, 0, 0, 0);

	private static final Check SYNTHETIC = (schedule) -> fails(schedule) ? "synthetic failure" : null;

	@Test
	void shrinksToTheFailingCoreInItsOrderWithHoldsAndTimeoutsShortened() {
		Schedule drawn = withCore(1);
		Result result = new ScheduleShrinker(SYNTHETIC, Duration.ofMinutes(2)).shrink(drawn, "synthetic failure");
		Schedule shrunk = result.schedule();
		assertThat(result.timedOut()).isFalse();
		assertThat(shrunk.faults()).containsExactly(new FaultStep(FaultKind.EXPIRE, 1, 900));
		// client 2's step came first as drawn, and still does
		assertThat(shrunk.steps()).extracting(Step::client).containsExactly(2, 0);
		Acquire hold = (Acquire) shrunk.steps().get(1).op();
		// 1,500 ms halved while at least 400; 2,500 ms halved down to no less than 50
		assertThat(hold.holdMillis()).isEqualTo(750);
		assertThat(hold.timeoutMillis()).isEqualTo(78);
		assertThat(shrunk.steps().get(0).op()).isInstanceOf(Acquire.class);
		assertThat(((Acquire) shrunk.steps().get(0).op()).holdMillis()).isZero();
		assertThat(result.failure()).isEqualTo("synthetic failure");
		assertOneMinimal(shrunk);
	}

	@Test
	void shrinksEverySampleOfTheGeneratorToTheSameMinimalCore() {
		for (long seed = 0; seed < 20; seed++) {
			Schedule drawn = withCore(seed);
			Schedule shrunk = new ScheduleShrinker(SYNTHETIC, Duration.ofMinutes(2)).shrink(drawn, "failed").schedule();
			assertThat(shrunk.steps()).as(drawn.toString()).hasSize(2);
			assertThat(shrunk.faults()).hasSize(1);
			assertOneMinimal(shrunk);
		}
	}

	// a candidate takes a second on this clock: after the bound, the smallest failure so far
	@Test
	void stopsAtItsBoundWithTheSmallestFailureSoFar() {
		AtomicLong clock = new AtomicLong();
		List<Integer> sizes = new ArrayList<>();
		Check slow = (schedule) -> {
			clock.addAndGet(Duration.ofSeconds(1).toNanos());
			String failure = SYNTHETIC.failure(schedule);
			if (failure != null) {
				sizes.add(schedule.steps().size() + schedule.faults().size());
			}
			return failure;
		};
		Schedule drawn = withCore(7);
		Result result = new ScheduleShrinker(slow, Duration.ofSeconds(10), clock::get).shrink(drawn, "failed");
		assertThat(result.timedOut()).isTrue();
		assertThat(result.candidates()).isEqualTo(10);
		assertThat(fails(result.schedule())).isTrue();
		assertThat(result.schedule().steps().size() + result.schedule().faults().size())
			.isLessThan(drawn.steps().size() + drawn.faults().size())
			.isEqualTo(sizes.stream().mapToInt(Integer::intValue).min().orElseThrow());
	}

	@Test
	void aScheduleThatThrowsCountsAsFailing() {
		Check throwsOnExpiry = (schedule) -> {
			if (fails(schedule)) {
				throw new IllegalStateException("no server");
			}
			return null;
		};
		Result result = new ScheduleShrinker(throwsOnExpiry, Duration.ofMinutes(2)).shrink(withCore(3), "threw");
		assertThat(result.schedule().steps()).hasSize(2);
		assertThat(result.failure()).startsWith("threw java.lang.IllegalStateException: no server");
	}

	// a random schedule, with client 2's step first, client 0's long hold after the others, and the expiry among faults
	private static Schedule withCore(long seed) {
		Schedule random = new ScheduleProperty(ScheduleArbitraries.mixed(List.of(FaultKind.DROP, FaultKind.PAUSE_WITHIN_SESSION)),
				Duration.ZERO)
			.generate(seed);
		List<Step> steps = new ArrayList<>();
		steps.add(new Step(2, 0, 100, LONG_HOLD));
		random.steps().stream().filter((step) -> step.client() == 1).forEach(steps::add);
		steps.add(new Step(0, 1, 200, LONG_HOLD));
		List<FaultStep> faults = new ArrayList<>(random.faults());
		faults.add(faults.size() / 2, new FaultStep(FaultKind.EXPIRE, 1, 900));
		return new Schedule(List.copyOf(steps), List.copyOf(faults));
	}

	private static boolean fails(Schedule schedule) {
		return schedule.faults().stream().anyMatch((fault) -> fault.kind() == FaultKind.EXPIRE && fault.client() == 1)
				&& schedule.steps().stream().anyMatch((step) -> step.client() == 2)
				&& schedule.steps()
					.stream()
					.anyMatch((step) -> step.client() == 0 && step.op() instanceof Acquire acquire
							&& acquire.holdMillis() >= 400);
	}

	// without any one of its steps or faults, the schedule passes
	private static void assertOneMinimal(Schedule shrunk) {
		for (int i = 0; i < shrunk.steps().size(); i++) {
			List<Step> fewer = new ArrayList<>(shrunk.steps());
			fewer.remove(i);
			assertThat(fails(new Schedule(fewer, shrunk.faults()))).isFalse();
		}
		for (int i = 0; i < shrunk.faults().size(); i++) {
			List<FaultStep> fewer = new ArrayList<>(shrunk.faults());
			fewer.remove(i);
			assertThat(fails(new Schedule(shrunk.steps(), fewer))).isFalse();
		}
	}

}
