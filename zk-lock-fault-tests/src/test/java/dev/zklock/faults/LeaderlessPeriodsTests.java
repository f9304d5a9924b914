package dev.zklock.faults;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How {@link LeaderlessPeriods} counts a kill's window: periods are cut to it, those
 * outside it drop out, and a second period inside it adds its time.
 */
class LeaderlessPeriodsTests {

	private static final long MS = 1_000_000;

	@Test
	void aPeriodIsCutToTheWindow() {
		List<long[]> inside = LeaderlessPeriods.clip(List.of(period(100, 900)), 300 * MS, 600 * MS);
		assertThat(inside).containsExactly(period(300, 600));
		assertThat(LeaderlessPeriods.totalMillis(inside)).isEqualTo(300);
	}

	@Test
	void periodsOutsideTheWindowDropOut() {
		List<long[]> inside = LeaderlessPeriods.clip(List.of(period(0, 100), period(200, 300), period(600, 700)),
				100 * MS, 600 * MS);
		assertThat(inside).containsExactly(period(200, 300));
	}

	@Test
	void aSecondElectionInsideOneWindowAddsItsTime() {
		// the kill's election, grants for a while, then the new leader lost again
		List<long[]> inside = LeaderlessPeriods.clip(List.of(period(1_000, 2_500), period(9_800, 11_300)),
				1_000 * MS, Long.MAX_VALUE);
		assertThat(inside).hasSize(2);
		assertThat(LeaderlessPeriods.totalMillis(inside)).isEqualTo(3_000);
	}

	private static long[] period(long startMillis, long endMillis) {
		return new long[] { startMillis * MS, endMillis * MS };
	}

}
