package dev.zklock.faults;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * How {@link LeaderlessPeriods} counts a kill's window: periods are cut to it, those
 * outside it drop out, and a second period inside it adds its time; how its sampler
 * opens and closes a period; and that a sampler that died says so rather than
 * leaving the bound off.
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

	@Test
	void theSamplerOpensAPeriodWhenNoMemberLeadsAndClosesItWhenOneDoes() {
		AtomicBoolean led = new AtomicBoolean(true);
		AtomicLong switchedBack = new AtomicLong(Long.MAX_VALUE);
		AtomicInteger ledSince = new AtomicInteger();
		AtomicInteger leaderless = new AtomicInteger();
		try (LeaderlessPeriods periods = LeaderlessPeriods.start(() -> {
			boolean leads = led.get();
			if (!leads) {
				leaderless.incrementAndGet();
			}
			else if (System.nanoTime() > switchedBack.get()) {
				ledSince.incrementAndGet();
			}
			return leads;
		})) {
			long from = System.nanoTime();
			assertThat(periods.within(from, Long.MAX_VALUE)).isEmpty();
			led.set(false);
			// two samples: the first one's answer is recorded before the second is asked
			await().atMost(Duration.ofSeconds(10)).until(() -> leaderless.get() >= 2);
			assertThat(periods.within(from, Long.MAX_VALUE)).as("a period under way").hasSize(1);
			switchedBack.set(System.nanoTime());
			led.set(true);
			await().atMost(Duration.ofSeconds(10)).until(() -> ledSince.get() >= 2);
			List<long[]> closed = periods.within(from, Long.MAX_VALUE);
			assertThat(closed).hasSize(1);
			assertThat(closed.get(0)[1]).as("closed by a sample after a leader was back")
				.isGreaterThan(switchedBack.get());
			assertThat(periods.within(from, Long.MAX_VALUE).get(0)).as("a closed period no longer grows")
				.containsExactly(closed.get(0));
		}
	}

	@Test
	void aSamplerThatDiedFailsTheBoundInsteadOfSkewingIt() {
		IllegalArgumentException cause = new IllegalArgumentException("no answer from any member");
		try (LeaderlessPeriods periods = LeaderlessPeriods.start(() -> {
			throw cause;
		})) {
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThatIllegalStateException()
				.isThrownBy(() -> periods.within(0, Long.MAX_VALUE))
				.withMessageContaining("sampler stopped early")
				.withCause(cause));
		}
	}

	private static long[] period(long startMillis, long endMillis) {
		return new long[] { startMillis * MS, endMillis * MS };
	}

}
