package dev.zklock.faults;

import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;

/**
 * A load with local hand-off beside a scenario's own load on the same key, on some
 * of its workers: {@code load id=<key>-h key=<key> handoff=true} until stopped, and
 * what the workers' local hand-off did meanwhile.
 */
final class HandoffLoad {

	/** The engine's max-passes, which the fault workers keep. */
	static final int DEFAULT_MAX_PASSES = 16;

	private final List<WorkerProcess> workers;

	private final String id;

	private final HandoffCounts before;

	private HandoffLoad(List<WorkerProcess> workers, String id, HandoffCounts before) {
		this.workers = workers;
		this.id = id;
		this.before = before;
	}

	/**
	 * Start the load on each worker.
	 * @param workers the workers
	 * @param key the key
	 * @param parameters the load's parameters, such as {@code threads=3 grants=0}
	 * @return the running load
	 */
	static HandoffLoad start(List<WorkerProcess> workers, String key, String parameters) {
		String id = key + "-h";
		HandoffCounts before = HandoffCounts.of(workers, id + "-before");
		workers.forEach((worker) -> worker.send("load id=" + id + " key=" + key + " " + parameters + " handoff=true"));
		return new HandoffLoad(workers, id, before);
	}

	/**
	 * Wait until the load's threads have passed the lock within a JVM.
	 * @param timeout the longest wait
	 */
	void awaitPasses(Duration timeout) {
		await("passes of " + this.id).atMost(timeout)
			.pollInterval(Duration.ofMillis(100))
			.until(() -> HandoffCounts.of(this.workers, this.id + "-passes").since(this.before).passes() > 0);
	}

	/**
	 * Stop the load and wait until every worker has.
	 * @param timeout the longest wait for each worker
	 * @return the workers' {@code load-done} events and the hand-off counts of the load
	 */
	Result stop(Duration timeout) {
		this.workers.forEach((worker) -> worker.send("stop id=" + this.id));
		List<WorkerEvent> loads = this.workers.stream().map((worker) -> worker.await("load-done", this.id, timeout))
			.toList();
		return new Result(loads, HandoffCounts.of(this.workers, this.id + "-after").since(this.before));
	}

	/**
	 * What the load did.
	 *
	 * @param loads the workers' {@code load-done} events
	 * @param counts the passes and tenures meanwhile
	 */
	record Result(List<WorkerEvent> loads, HandoffCounts counts) {

		long count(String name) {
			return this.loads.stream().mapToLong((event) -> event.count(name)).sum();
		}

		@Override
		public String toString() {
			return this.counts + " grants=" + count("grants") + " WRITTEN=" + count("WRITTEN") + " NOT_HELD="
					+ count("NOT_HELD") + " timeouts=" + count("timeouts") + " lockErrors=" + count("lockErrors");
		}

	}

}
