package dev.zklock.schedules;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.Schedule.Acquire;
import dev.zklock.schedules.Schedule.Family;
import dev.zklock.schedules.Schedule.Nesting;
import dev.zklock.schedules.Schedule.Step;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The generator on its own, without a server: every schedule it draws is one the
 * runner can run as meant.
 */
class ScheduleArbitrariesTests {

	@Property(tries = 300)
	void everyStepIsWithinTheSchedule(@ForAll("schedules") Schedule schedule) {
		// 4 to 16 drawn, and maybe one deletion aimed at one of them
		assertThat(schedule.steps()).hasSizeBetween(4, 17);
		assertThat(schedule.faults()).hasSizeLessThanOrEqualTo(3);
		for (Step step : schedule.steps()) {
			assertThat(step.client()).isBetween(0, Schedule.CLIENTS - 1);
			assertThat(step.worker()).isBetween(0, Schedule.WORKERS - 1);
			assertThat(step.atMillis()).isBetween(0L, Schedule.SPAN_MILLIS);
		}
		schedule.faults().forEach((fault) -> assertThat(fault.client()).isBetween(0, Schedule.CLIENTS - 1));
	}

	@Property(tries = 300)
	void everyAcquisitionAsksForWhatItsLockNameTakes(@ForAll("schedules") Schedule schedule) {
		for (Step step : schedule.steps()) {
			if (step.op() instanceof Acquire acquire) {
				LockMode mode = acquire.mode();
				switch (acquire.family()) {
					case MUTEX -> assertThat(mode).isEqualTo(LockMode.MUTEX);
					case READ_WRITE -> assertThat(mode).isIn(LockMode.READ, LockMode.WRITE);
					case SEMAPHORE -> assertThat(mode).isEqualTo(LockMode.SEMAPHORE);
				}
				assertThat(acquire.keys()).isNotEmpty().doesNotHaveDuplicates();
				// the asynchronous API has no nesting; READ inside WRITE and downgrades need a WRITE
				if (acquire.async()) {
					assertThat(acquire.nesting()).isEqualTo(Nesting.NONE);
				}
				if (acquire.nesting() == Nesting.READ_IN_WRITE || acquire.nesting() == Nesting.DOWNGRADE) {
					assertThat(acquire.family()).isEqualTo(Family.READ_WRITE);
					assertThat(mode).isEqualTo(LockMode.WRITE);
				}
			}
		}
	}

	@Provide
	Arbitrary<Schedule> schedules() {
		return ScheduleArbitraries.schedules();
	}

}
