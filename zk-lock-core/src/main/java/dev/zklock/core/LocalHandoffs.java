package dev.zklock.core;

import java.util.List;

import dev.zklock.LocalTenure;

/**
 * What a lock manager's local hand-off is doing, for the {@code locks} endpoint and
 * the {@code zk.lock.handoffs} meter: the keys with a tenure or local waiters, and
 * how many grants were passed within this process or came through ZooKeeper.
 */
public final class LocalHandoffs {

	private final LocalCohorts cohorts;

	LocalHandoffs(LocalCohorts cohorts) {
		this.cohorts = cohorts;
	}

	/**
	 * The keys locked with local hand-off right now: held in a tenure, or awaited
	 * by local waiters.
	 * @return the tenures, in no particular order
	 */
	public List<LocalTenure> tenures() {
		return this.cohorts.snapshot();
	}

	/**
	 * Grants passed from one local holder to the next without ZooKeeper, since the
	 * manager started.
	 * @return the count
	 */
	public long localHandoffs() {
		return this.cohorts.passes();
	}

	/**
	 * Grants of locks with local hand-off that came through ZooKeeper: each starts a
	 * tenure.
	 * @return the count
	 */
	public long zooKeeperHandoffs() {
		return this.cohorts.zooKeeperGrants();
	}

	/**
	 * How many passes a tenure makes at most once another process waits.
	 * @return the bound
	 */
	public int maxPasses() {
		return this.cohorts.maxPasses();
	}

}
