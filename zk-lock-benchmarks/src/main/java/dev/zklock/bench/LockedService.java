package dev.zklock.bench;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;

/**
 * The annotated methods the benchmarks call through the Spring proxy. They do no
 * work of their own, so that a cycle measures only the lock.
 */
public class LockedService {

	/**
	 * MUTEX on one key.
	 * @param key the key
	 */
	@DistributedLock(name = "mutex", key = "#key")
	public void mutex(String key) {
	}

	/**
	 * READ on one key.
	 * @param key the key
	 */
	@DistributedLock(name = "rw", key = "#key", mode = LockMode.READ)
	public void read(String key) {
	}

	/**
	 * WRITE on one key.
	 * @param key the key
	 */
	@DistributedLock(name = "rw", key = "#key", mode = LockMode.WRITE)
	public void write(String key) {
	}

	/**
	 * SEMAPHORE with one permit on one key.
	 * @param key the key
	 */
	@DistributedLock(name = "semaphore", key = "#key", mode = LockMode.SEMAPHORE, permits = 1)
	public void semaphore(String key) {
	}

	/**
	 * SEMAPHORE with three permits on one key.
	 * @param key the key
	 */
	@DistributedLock(name = "semaphore3", key = "#key", mode = LockMode.SEMAPHORE, permits = 3)
	public void semaphore3(String key) {
	}

	/**
	 * SEMAPHORE with three permits on a key many threads want.
	 * @param key the key
	 */
	@DistributedLock(name = "contended-semaphore", key = "#key", mode = LockMode.SEMAPHORE, permits = 3,
			timeout = "60s")
	public void contendedSemaphore(String key) {
	}

	/**
	 * READ on a key many threads want.
	 * @param key the key
	 */
	@DistributedLock(name = "contended-rw", key = "#key", mode = LockMode.READ, timeout = "60s")
	public void contendedRead(String key) {
	}

	/**
	 * WRITE on a key many threads want.
	 * @param key the key
	 */
	@DistributedLock(name = "contended-rw", key = "#key", mode = LockMode.WRITE, timeout = "60s")
	public void contendedWrite(String key) {
	}

	/**
	 * MUTEX for the many-keys run.
	 * @param key the key
	 */
	@DistributedLock(name = "many", key = "#key")
	public void many(String key) {
	}

	/**
	 * MUTEX on a key many threads want, marking the hand-off.
	 * @param key the key
	 * @param probe records when the lock arrived and when it is given back
	 */
	@DistributedLock(name = "contended", key = "#key", timeout = "60s")
	public void contended(String key, HandoffProbe probe) {
		probe.acquired();
		probe.releasing();
	}

}
