package dev.zklock.core;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Pause detectors on a clock a test moves, for tests outside this package: not
 * started, so only the test ticks them, and a pause is exact and instant.
 */
public final class ManualPauseDetectors {

	private ManualPauseDetectors() {
	}

	/**
	 * A detector ticking every 10 ms on the given clock, counting a gap of more
	 * than the threshold as a pause.
	 * @param clock the clock, in nanoseconds
	 * @param pauseThreshold the gap that counts as a pause
	 * @return the detector, not started
	 */
	public static PauseDetector onClock(LongSupplier clock, Duration pauseThreshold) {
		return new PauseDetector(Duration.ofMillis(10), pauseThreshold, clock);
	}

	/**
	 * Tick once, as the ticker thread would after running again.
	 * @param detector a detector on a test clock
	 */
	public static void tick(PauseDetector detector) {
		detector.tick();
	}

}
