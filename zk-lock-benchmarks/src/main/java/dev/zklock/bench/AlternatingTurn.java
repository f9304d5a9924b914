package dev.zklock.bench;

import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Which of two contestants an iteration of an alternating benchmark measures, in the
 * order A B B A (which cancels a steady drift in load), so that load from elsewhere
 * on the machine hits both alike; the measured iterations start the order afresh.
 * <p>
 * Each measured iteration adds, for its contestant, to
 * {@code <prefix>.<contestant>.acquisitions} (and {@code .<role>.acquisitions} when
 * threads have different roles, such as readers and a writer), {@code .seconds}
 * (ramp-up and ramp-down included for both), {@code .packets} (the server's requests
 * over the same span, every request of the iteration), {@code .zk.<type>} (the
 * clients' requests by type, {@link OpCounts}) and, for runs with
 * {@link HandoffProbe}s, {@code .handoff.p50sum} and {@code .handoff.iterations} (the
 * mean of the iterations' hand-off medians is their quotient).
 */
public abstract class AlternatingTurn {

	private static final int[] ORDER = { 0, 1, 1, 0 };

	// every alternating benchmark so far pits zk-lock against Curator with a lock per thread
	private static final String[] CONTESTANTS = { "zkLock", "curatorPerThread" };

	private final String prefix;

	private final String[] roles;

	private final LongAdder[] acquisitions;

	private volatile int current;

	private int warmups;

	private int measurements;

	private long start;

	private long packetsBefore;

	private long[] opsBefore = new long[OpCounts.TYPES.length];

	/**
	 * A turn between zk-lock and Curator with a lock per thread.
	 * @param prefix the prefix of this benchmark's metrics, in which {@code %d}
	 * stands for the number of threads
	 * @param roles the names of the threads' roles
	 */
	protected AlternatingTurn(String prefix, String... roles) {
		this.prefix = prefix;
		this.roles = roles;
		this.acquisitions = new LongAdder[roles.length];
		for (int i = 0; i < roles.length; i++) {
			this.acquisitions[i] = new LongAdder();
		}
	}

	/**
	 * The index of this iteration's contestant.
	 * @return 0 or 1
	 */
	int current() {
		return this.current;
	}

	/**
	 * Count one acquisition.
	 * @param role the index of the thread's role
	 */
	void acquired(int role) {
		this.acquisitions[role].increment();
	}

	/**
	 * Pick the next contestant.
	 * @param iteration the iteration about to run
	 * @throws IOException when the server does not answer
	 */
	@Setup(Level.Iteration)
	public void next(IterationParams iteration) throws IOException {
		int index = (iteration.getType() == IterationType.MEASUREMENT) ? this.measurements++ : this.warmups++;
		this.current = ORDER[index % ORDER.length];
		for (LongAdder adder : this.acquisitions) {
			adder.reset();
		}
		HandoffProbe.drainAll();
		this.packetsBefore = packets();
		this.opsBefore = HandoffBoard.shared().opCounts();
		starting();
		this.start = System.nanoTime();
	}

	/**
	 * Called before each iteration, once {@link #current()} is this iteration's
	 * contestant; for figures of a subclass's own.
	 */
	protected void starting() {
	}

	/**
	 * Called after each measured iteration, with the prefix of its contestant's
	 * figures; for figures of a subclass's own.
	 * @param name {@code <prefix>.<contestant>}
	 */
	protected void measured(String name) {
	}

	/**
	 * Publish this iteration's figures.
	 * @param benchmark the benchmark
	 * @param iteration the iteration that ran
	 * @throws IOException when the server does not answer
	 */
	@TearDown(Level.Iteration)
	public void publish(BenchmarkParams benchmark, IterationParams iteration) throws IOException {
		double seconds = (System.nanoTime() - this.start) / 1e9;
		long packets = packets() - this.packetsBefore;
		long[] ops = HandoffBoard.shared().opCounts();
		HandoffProbe.Drained drained = HandoffProbe.drainAll();
		if (iteration.getType() != IterationType.MEASUREMENT) {
			return;
		}
		String name = String.format(this.prefix, benchmark.getThreads()) + "." + CONTESTANTS[this.current];
		long total = 0;
		for (int role = 0; role < this.roles.length; role++) {
			long count = this.acquisitions[role].sum();
			total += count;
			if (this.roles.length > 1) {
				IterationMetrics.publishSum(name + "." + this.roles[role] + ".acquisitions", count, "#");
			}
		}
		IterationMetrics.publishSum(name + ".acquisitions", total, "#");
		IterationMetrics.publishSum(name + ".seconds", seconds, "s");
		IterationMetrics.publishSum(name + ".packets", packets, "#");
		for (int i = 0; i < ops.length; i++) {
			IterationMetrics.publishSum(name + ".zk." + OpCounts.TYPES[i], ops[i] - this.opsBefore[i], "#");
		}
		if (drained.handoffNanos().length > 0) {
			IterationMetrics.publishSum(name + ".handoff.p50sum", drained.percentileMicros(50), "us");
			IterationMetrics.publishSum(name + ".handoff.iterations", 1, "#");
		}
		measured(name);
	}

	private static long packets() throws IOException {
		return ZooKeeperMonitor.packetsReceived(BenchContext.connectString());
	}

}
