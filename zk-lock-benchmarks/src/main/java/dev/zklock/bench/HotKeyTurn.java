package dev.zklock.bench;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.infra.BenchmarkParams;

import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.LocalHandoffs;

/**
 * An {@link AlternatingTurn} of the hot-key rows (issue #31): zk-lock with local
 * hand-off against Curator with a lock per thread. It posts the turn on the
 * {@link HandoffBoard}, so that a contending JVM switches with this one, bounds the
 * tenures by the benchmark's {@code limits} parameter when it has one
 * ({@link HotKeys#limit}), and adds for each contestant:
 * {@code .passes} and {@code .tenures} (this JVM's grants passed locally and
 * through ZooKeeper), {@code .everyJvm.acquisitions} (the board's count: both JVMs
 * of a two-JVM run), {@code .runs} (runs of consecutive acquisitions by one JVM),
 * {@code .longestRun} and {@code .longestRunMs} (the largest of any iteration) and
 * {@code .switches} and {@code .switchMs} (the hand-offs from one JVM to the other,
 * and their time added up).
 */
public abstract class HotKeyTurn extends AlternatingTurn {

	private static final String LIMITS = "limits";

	private LocalHandoffs handoffs;

	private long passesBefore;

	private long tenuresBefore;

	private long boardBefore;

	/**
	 * A turn between zk-lock with local hand-off and Curator with a lock per thread.
	 * @param prefix the prefix of this benchmark's metrics ({@code %d}: the threads)
	 * @param roles the names of the threads' roles
	 */
	protected HotKeyTurn(String prefix, String... roles) {
		super(prefix, roles);
	}

	/**
	 * Find the lock manager, and bound its tenures.
	 * @param fixture the locks
	 * @param benchmark the benchmark, with its {@code limits} when it has them
	 */
	@Setup(Level.Trial)
	public void bound(LockFixture fixture, BenchmarkParams benchmark) {
		CuratorLockManager manager = fixture.context().lockManager();
		this.handoffs = manager.getLocalHandoffs();
		if (benchmark.getParamsKeys().contains(LIMITS)) {
			HotKeys.limit(manager, benchmark.getParam(LIMITS));
		}
	}

	@Override
	protected void starting() {
		HandoffBoard board = HandoffBoard.shared();
		board.turn(current());
		board.drainRuns();
		this.boardBefore = board.acquisitions();
		this.passesBefore = this.handoffs.localHandoffs();
		this.tenuresBefore = this.handoffs.zooKeeperHandoffs();
	}

	@Override
	protected void measured(String name) {
		HandoffBoard board = HandoffBoard.shared();
		HandoffBoard.Runs runs = board.drainRuns();
		IterationMetrics.publishSum(name + ".everyJvm.acquisitions", board.acquisitions() - this.boardBefore, "#");
		IterationMetrics.publishSum(name + ".passes", this.handoffs.localHandoffs() - this.passesBefore, "#");
		IterationMetrics.publishSum(name + ".tenures", this.handoffs.zooKeeperHandoffs() - this.tenuresBefore, "#");
		IterationMetrics.publishSum(name + ".runs", runs.count(), "#");
		IterationMetrics.publishMax(name + ".longestRun", runs.longest(), "#");
		IterationMetrics.publishMax(name + ".longestRunMs", runs.longestNanos() / 1e6, "ms");
		IterationMetrics.publishSum(name + ".switches", runs.switches(), "#");
		IterationMetrics.publishSum(name + ".switchMs", runs.switchNanos() / 1e6, "ms");
	}

}
