package dev.zklock.core;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import dev.zklock.testsupport.ParentWatchdog;

/**
 * A main class for {@link PauseDetectorProcessTests}: runs a {@link PauseDetector} and a
 * checker thread that reads it every millisecond, as a lock holder's
 * {@code isHeld()} would. When the checker finds that it was itself frozen (its
 * millisecond took longer than {@code freezeMs}), it prints what its first read after
 * the freeze saw: {@code resumed silent=... epochChanged=... silenceMs=... ticks=...}.
 * Exits on {@code exit}.
 */
public final class PauseProbeMain {

	private PauseProbeMain() {
	}

	/**
	 * Run until {@code exit}.
	 * @param args the freeze that the checker reports, in milliseconds
	 * @throws InterruptedException when interrupted
	 */
	public static void main(String[] args) throws InterruptedException {
		long freezeNanos = Duration.ofMillis(Long.parseLong(args[0])).toNanos();
		long safeNanos = freezeNanos / 2;
		PauseDetector detector = new PauseDetector(PauseDetector.DEFAULT_TICK, Duration.ofNanos(safeNanos)).start();
		Thread checker = new Thread(() -> check(detector, freezeNanos, safeNanos), "checker");
		checker.setDaemon(true);
		checker.start();
		System.out.println("ready");
		while (!ParentWatchdog.commands().take().equals("exit")) {
			// only exit is understood
		}
		detector.close();
		System.exit(0);
	}

	private static void check(PauseDetector detector, long freezeNanos, long safeNanos) {
		long last = System.nanoTime();
		long epoch = detector.pauseEpoch();
		while (true) {
			LockSupport.parkNanos(1_000_000);
			// what a hold would read first
			boolean silent = detector.silentLongerThan(safeNanos);
			long silence = detector.silenceNanos();
			long nowEpoch = detector.pauseEpoch();
			long now = System.nanoTime();
			if (now - last > freezeNanos) {
				System.out.println("resumed silent=" + silent + " epochChanged=" + (nowEpoch != epoch) + " silenceMs="
						+ silence / 1_000_000 + " frozenMs=" + (now - last) / 1_000_000);
			}
			epoch = nowEpoch;
			last = now;
		}
	}

}
