package dev.zklock.faults;

import java.time.Duration;

import static org.awaitility.Awaitility.await;

/**
 * Threads of one worker JVM that lock a key with local hand-off beside a section the
 * test steps through in the same JVM ({@code hold} or {@code pause} with
 * {@code handoff=true}): they queue behind it in the JVM, without a node of their own,
 * and are the tenure's next local holders when it releases. A {@code load} of
 * {@value #THREADS} threads that run until stopped.
 */
final class LocalHolders {

	/** The local holders' threads. */
	static final int THREADS = 3;

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private final WorkerProcess worker;

	private final String key;

	private final String id;

	private final String parameters;

	/**
	 * Local holders, not started.
	 * @param worker their JVM
	 * @param key the key
	 * @param id the load's id
	 * @param parameters further load parameters, such as {@code sleepMs=20}
	 */
	LocalHolders(WorkerProcess worker, String key, String id, String parameters) {
		this.worker = worker;
		this.key = key;
		this.id = id;
		this.parameters = parameters;
	}

	void start() {
		this.worker.send("load id=" + this.id + " key=" + this.key + " threads=" + THREADS
				+ " grants=0 timeoutMs=60000 handoff=true " + this.parameters);
	}

	/**
	 * Start them behind a holder of the JVM, and wait until every one of them waits.
	 */
	void startQueued() {
		start();
		await("local holders of " + this.key + " queued in " + this.worker).atMost(TIMEOUT)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> {
				this.worker.send("registry id=" + this.id);
				return this.worker.await("registry", this.id, TIMEOUT).number("waiting") == THREADS;
			});
	}

	/**
	 * Wait until the JVM's tenure knows that another process waits, so that its next
	 * release ends it once its bounds have passed.
	 */
	void awaitOthersWaiting() {
		await("the tenure of " + this.key + " in " + this.worker + " to learn of a waiter elsewhere").atMost(TIMEOUT)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> {
				this.worker.send("handoffs id=" + this.id);
				return this.worker.await("handoffs", this.id, TIMEOUT).number("othersWaiting") > 0;
			});
	}

	/**
	 * Stop the threads and wait until they have.
	 * @return the load's counts
	 */
	WorkerEvent stop() {
		this.worker.send("stop id=" + this.id);
		return this.worker.await("load-done", this.id, TIMEOUT);
	}

	/**
	 * Wait until the resource applied a write on the key after the given time, stop the
	 * threads and wait until they have.
	 * @param resource the resource
	 * @param sinceNanos the time, {@link System#nanoTime()}
	 * @return the load's counts
	 */
	WorkerEvent stopAfterWriteSince(ProtectedResource resource, long sinceNanos) {
		await("a write on " + this.key + " after the resume").atMost(TIMEOUT)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> Timeline.firstAfter(resource.writeTimes(this.key), sinceNanos) > 0);
		return stop();
	}

}
