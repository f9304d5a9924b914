package dev.zklock.faults;

import java.time.Duration;
import java.util.List;

/**
 * What the local hand-off of some worker JVMs did so far, from their {@code handoffs}
 * events; the difference of two snapshots is what a scenario did.
 *
 * @param passes grants passed within a JVM without ZooKeeper
 * @param tenures grants of locks with local hand-off through ZooKeeper, each a tenure
 */
record HandoffCounts(long passes, long tenures) {

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	/**
	 * Ask the workers for their counts.
	 * @param workers the workers, running
	 * @param id the id of the events
	 * @return the sums
	 */
	static HandoffCounts of(List<WorkerProcess> workers, String id) {
		long passes = 0;
		long tenures = 0;
		for (WorkerProcess worker : workers) {
			worker.send("handoffs id=" + id);
			WorkerEvent event = worker.await("handoffs", id, TIMEOUT);
			passes += event.number("passes");
			tenures += event.number("tenures");
		}
		return new HandoffCounts(passes, tenures);
	}

	HandoffCounts since(HandoffCounts earlier) {
		return new HandoffCounts(this.passes - earlier.passes, this.tenures - earlier.tenures);
	}

	@Override
	public String toString() {
		return "passes=" + this.passes + " tenures=" + this.tenures;
	}

}
