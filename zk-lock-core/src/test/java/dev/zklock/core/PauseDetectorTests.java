package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link PauseDetector}: pauses simulated with a clock the test moves, and
 * the real ticker thread.
 */
class PauseDetectorTests {

	private static final long MS = 1_000_000;

	private final AtomicLong clock = new AtomicLong(1_000 * MS);

	private final PauseDetector detector = new PauseDetector(Duration.ofMillis(10), Duration.ofMillis(100),
			this.clock::get);

	@Test
	void silenceIsTheTimeSinceTheLastTick() {
		this.detector.tick();
		assertThat(this.detector.silenceNanos()).isZero();
		this.clock.addAndGet(40 * MS);
		assertThat(this.detector.silenceNanos()).isEqualTo(40 * MS);
		assertThat(this.detector.silentLongerThan(39 * MS)).isTrue();
		assertThat(this.detector.silentLongerThan(40 * MS)).isFalse();
		this.detector.tick();
		assertThat(this.detector.silentLongerThan(0)).isFalse();
		assertThat(this.detector.lastTickNanos()).isEqualTo(1_040 * MS);
	}

	@Test
	void aPauseShowsAtOnceBeforeTheTickerRunsAgain() {
		this.detector.tick();
		this.clock.addAndGet(8_000 * MS);
		// the caller reads the clock itself, so the ticker need not have run
		assertThat(this.detector.silentLongerThan(PauseDetector.safeSilence(Duration.ofSeconds(4)).toNanos()))
			.isTrue();
		assertThat(this.detector.pauseEpoch()).isZero();
	}

	@Test
	void theEpochCountsGapsLongerThanTheThresholdOnly() {
		for (int i = 0; i < 50; i++) {
			this.clock.addAndGet(10 * MS);
			this.detector.tick();
		}
		this.clock.addAndGet(100 * MS);
		this.detector.tick();
		assertThat(this.detector.pauseEpoch()).as("a gap of exactly the threshold").isZero();
		this.clock.addAndGet(101 * MS);
		this.detector.tick();
		assertThat(this.detector.pauseEpoch()).isEqualTo(1);
		this.clock.addAndGet(10 * MS);
		this.detector.tick();
		this.clock.addAndGet(5_000 * MS);
		this.detector.tick();
		assertThat(this.detector.pauseEpoch()).isEqualTo(2);
		assertThat(this.detector.longestGapNanos()).isEqualTo(5_000 * MS);
		// once the ticker ran, the silence is gone but the epoch tells
		assertThat(this.detector.silentLongerThan(MS)).isFalse();
	}

	@Test
	void safeSilenceIsAQuarterOfTheSessionTimeout() {
		assertThat(PauseDetector.safeSilence(Duration.ofSeconds(4))).isEqualTo(Duration.ofSeconds(1));
		assertThat(PauseDetector.safeSilence(Duration.ofSeconds(30))).isEqualTo(Duration.ofMillis(7_500));
		// below the worst case the server leaves us, a third of the session
		assertThat(PauseDetector.safeSilence(Duration.ofMillis(6_000)))
			.isLessThan(Duration.ofMillis(6_000).dividedBy(3));
	}

	@Test
	void tickListenersRunAfterEachTickWithTheTickRecorded() {
		List<Long> seen = new ArrayList<>();
		Runnable listener = () -> seen.add(this.detector.silenceNanos());
		this.detector.addTickListener(() -> {
			throw new IllegalStateException("a failing listener");
		});
		this.detector.addTickListener(listener);
		this.clock.addAndGet(10 * MS);
		this.detector.tick();
		this.clock.addAndGet(10 * MS);
		this.detector.tick();
		this.detector.removeTickListener(listener);
		this.detector.tick();
		// the failing listener stopped neither the tick nor the next listener
		assertThat(seen).containsExactly(0L, 0L);
	}

	@Test
	void safeSilenceInNanosIsTheSameQuarter() {
		for (long millis : new long[] { 1, 4_000, 6_001, 30_000, 40_003 }) {
			assertThat(PauseDetector.safeSilenceNanos(millis)).as("safe silence of %d ms", millis)
				.isEqualTo(PauseDetector.safeSilence(Duration.ofMillis(millis)).toNanos());
		}
	}

	@Test
	void safeSilenceRejectsATimeoutThatIsNotPositive() {
		assertThatIllegalArgumentException().isThrownBy(() -> PauseDetector.safeSilence(Duration.ZERO))
			.withMessageContaining("PauseDetector.safeSilence")
			.withMessageContaining("negotiated session timeout");
		assertThatIllegalArgumentException().isThrownBy(() -> PauseDetector.safeSilence(null))
			.withMessageContaining("PauseDetector.safeSilence");
	}

	@Test
	void rejectsATickThatIsNotPositive() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new PauseDetector(Duration.ZERO, Duration.ofMillis(100)))
			.withMessageContaining("tick must be positive")
			.withMessageContaining("zk-lock.pause-detection.tick");
	}

	@Test
	void rejectsAThresholdThatTheTickersOwnDelaysWouldReach() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new PauseDetector(Duration.ofMillis(10), Duration.ofMillis(20)))
			.withMessageContaining("pauseThreshold must be more than twice the tick");
	}

	@Test
	void startedForASessionTheThresholdIsAFractionOfTheSafeSilence() {
		try (PauseDetector started = PauseDetector.startForSession(Duration.ofMillis(10), Duration.ofSeconds(4))) {
			assertThat(started.pauseThresholdNanos()).isEqualTo(250 * MS);
		}
		try (PauseDetector started = PauseDetector.startForSession(Duration.ofMillis(50), Duration.ofSeconds(2))) {
			assertThat(started.pauseThresholdNanos()).as("at least three ticks").isEqualTo(150 * MS);
		}
	}

	@Test
	void theTickerTicksUntilClosed() {
		PauseDetector real = new PauseDetector(Duration.ofMillis(5), Duration.ofSeconds(1)).start();
		try {
			long first = real.lastTickNanos();
			await().atMost(Duration.ofSeconds(5)).until(() -> real.lastTickNanos() != first);
			await().atMost(Duration.ofSeconds(5)).until(() -> !real.silentLongerThan(Duration.ofMillis(500).toNanos()));
		}
		finally {
			real.close();
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> !real.isTicking());
		long last = real.lastTickNanos();
		await().atMost(Duration.ofSeconds(5)).until(() -> real.silentLongerThan(Duration.ofMillis(50).toNanos()));
		assertThat(real.lastTickNanos()).as("no tick after close").isEqualTo(last);
	}

}
