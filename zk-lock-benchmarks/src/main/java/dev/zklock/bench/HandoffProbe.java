package dev.zklock.bench;

import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One contending thread's view of a lock: it marks when it starts waiting, when
 * the lock arrives and when it gives the lock back. A hand-off is the time from
 * the previous holder's release to this thread's acquisition, counted only when
 * this thread was already waiting at that release.
 * <p>
 * Probes of JMH threads keep their samples until {@link ZooKeeperOpsProfiler}
 * drains them after each iteration; probes of a contending JVM only mark the board.
 */
@State(Scope.Thread)
public class HandoffProbe {

	private static final Queue<HandoffProbe> registered = new ConcurrentLinkedQueue<>();

	private static final int MAX_SAMPLES = 1 << 18;

	private final HandoffBoard board = HandoffBoard.shared();

	private long[] samples = new long[1024];

	private int count;

	private long acquisitions;

	private long waitStart;

	/**
	 * Register this probe so that its samples are reported.
	 */
	@Setup
	public void register() {
		registered.add(this);
	}

	/**
	 * Mark the start of a wait.
	 */
	public void starting() {
		this.waitStart = System.nanoTime();
	}

	/**
	 * Mark the arrival of the lock.
	 */
	public void acquired() {
		long now = System.nanoTime();
		long lastRelease = this.board.lastRelease();
		this.board.acquired();
		this.acquisitions++;
		if (lastRelease > this.waitStart && this.count < MAX_SAMPLES) {
			if (this.count == this.samples.length) {
				this.samples = Arrays.copyOf(this.samples, this.count * 2);
			}
			this.samples[this.count++] = now - lastRelease;
		}
	}

	/**
	 * Mark the moment the lock is about to be given back.
	 */
	public void releasing() {
		this.board.releasing(System.nanoTime());
	}

	/**
	 * Take and reset the samples of every registered probe. Called between
	 * iterations, while no benchmark thread runs.
	 * @return hand-off times in nanoseconds, sorted, and the acquisitions of this JVM
	 */
	static Drained drainAll() {
		long acquisitions = 0;
		int total = 0;
		for (HandoffProbe probe : registered) {
			total += probe.count;
		}
		long[] all = new long[total];
		int at = 0;
		for (HandoffProbe probe : registered) {
			System.arraycopy(probe.samples, 0, all, at, probe.count);
			at += probe.count;
			acquisitions += probe.acquisitions;
			probe.count = 0;
			probe.acquisitions = 0;
		}
		Arrays.sort(all);
		return new Drained(all, acquisitions);
	}

	/**
	 * Samples taken from all probes of this JVM.
	 *
	 * @param handoffNanos hand-off times, sorted
	 * @param acquisitions acquisitions by this JVM
	 */
	record Drained(long[] handoffNanos, long acquisitions) {

		double percentileMicros(double percentile) {
			if (this.handoffNanos.length == 0) {
				return Double.NaN;
			}
			int index = (int) Math.ceil(percentile / 100.0 * this.handoffNanos.length) - 1;
			return this.handoffNanos[Math.max(0, Math.min(index, this.handoffNanos.length - 1))] / 1_000.0;
		}

	}

}
