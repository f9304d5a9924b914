package dev.zklock.faults;

import java.time.Duration;

/**
 * The unfenced control: a holder that checked before the fault writes after it
 * without checking again, once a waiter on another side got the lock. The
 * resource accepts and counts the stale write: the scenarios' checks can fail.
 */
final class StaleWriteControl {

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private final FaultLab lab;

	private final WorkerProcess holder;

	private final WorkerProcess waiter;

	private final String key;

	private StaleWriteControl(FaultLab lab, WorkerProcess holder, WorkerProcess waiter, String key) {
		this.lab = lab;
		this.holder = holder;
		this.waiter = waiter;
		this.key = key;
	}

	static StaleWriteControl start(FaultLab lab, WorkerProcess holder, WorkerProcess waiter, String key) {
		lab.resource().unfenced(key);
		holder.send("pause id=" + key + " key=" + key);
		holder.await("at-pause", key, TIMEOUT);
		waiter.send("load id=" + key + " key=" + key + " threads=1 grants=1 timeoutMs=30000");
		lab.awaitLockNodes(key, 2, TIMEOUT);
		return new StaleWriteControl(lab, holder, waiter, key);
	}

	// whether the resource accepted the holder's late write
	boolean finish(Duration timeout) {
		this.waiter.await("load-done", this.key, timeout);
		this.holder.send("go id=" + this.key);
		return this.holder.await("pause-done", this.key, TIMEOUT).flag("accepted");
	}

	ResourceStats stats() {
		return this.lab.resource().stats(this.key);
	}

}

