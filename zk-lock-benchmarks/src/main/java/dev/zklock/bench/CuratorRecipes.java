package dev.zklock.bench;

import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;

/**
 * Curator's own lock recipes, raw, on the Curator client of a {@link LockFixture}:
 * one instance of each reused by the uncontended runs, and new or shared ones on
 * the contended key. Their paths have the depth of zk-lock's.
 */
public final class CuratorRecipes {

	private static final String MUTEX = "/bench/curator/mutex/" + LockFixture.KEY;

	private static final String READ_WRITE = "/bench/curator/rw/" + LockFixture.KEY;

	private static final String SEMAPHORE = "/bench/curator/semaphore/" + LockFixture.KEY;

	private static final String SEMAPHORE3 = "/bench/curator/semaphore3/" + LockFixture.KEY;

	private static final String CONTENDED = "/bench/curator/contended/" + LockFixture.CONTENDED_KEY;

	private static final String CONTENDED_SEMAPHORE = "/bench/curator/contended-semaphore/"
			+ LockFixture.CONTENDED_KEY;

	private static final String CONTENDED_READ_WRITE = "/bench/curator/contended-rw/" + LockFixture.CONTENDED_KEY;

	private final CuratorFramework client;

	private final InterProcessMutex mutex;

	private final InterProcessReadWriteLock readWrite;

	private final InterProcessSemaphoreV2 semaphore;

	private final InterProcessSemaphoreV2 semaphore3;

	private final InterProcessMutex sharedContendedMutex;

	CuratorRecipes(CuratorFramework client) {
		this.client = client;
		this.mutex = new InterProcessMutex(client, MUTEX);
		this.readWrite = new InterProcessReadWriteLock(client, READ_WRITE);
		this.semaphore = new InterProcessSemaphoreV2(client, SEMAPHORE, 1);
		this.semaphore3 = new InterProcessSemaphoreV2(client, SEMAPHORE3, 3);
		this.sharedContendedMutex = new InterProcessMutex(client, CONTENDED);
	}

	/**
	 * One cycle of the recipe for a mode, one instance reused.
	 * @param mode as for {@link LockFixture#annotated(String)}
	 * @throws Exception when ZooKeeper fails
	 */
	public void cycle(String mode) throws Exception {
		switch (mode) {
			case "READ" -> read();
			case "WRITE" -> write();
			case "SEMAPHORE1" -> semaphore();
			case "SEMAPHORE3" -> semaphore3();
			default -> mutex();
		}
	}

	/**
	 * Mutex, one instance reused.
	 * @throws Exception when ZooKeeper fails
	 */
	public void mutex() throws Exception {
		this.mutex.acquire(10, TimeUnit.SECONDS);
		this.mutex.release();
	}

	/**
	 * Read lock, one instance reused.
	 * @throws Exception when ZooKeeper fails
	 */
	public void read() throws Exception {
		this.readWrite.readLock().acquire(10, TimeUnit.SECONDS);
		this.readWrite.readLock().release();
	}

	/**
	 * Write lock, one instance reused.
	 * @throws Exception when ZooKeeper fails
	 */
	public void write() throws Exception {
		this.readWrite.writeLock().acquire(10, TimeUnit.SECONDS);
		this.readWrite.writeLock().release();
	}

	/**
	 * Semaphore with one permit, one instance reused.
	 * @throws Exception when ZooKeeper fails
	 */
	public void semaphore() throws Exception {
		Lease lease = this.semaphore.acquire(10, TimeUnit.SECONDS);
		lease.close();
	}

	/**
	 * Semaphore with three permits, one instance reused.
	 * @throws Exception when ZooKeeper fails
	 */
	public void semaphore3() throws Exception {
		Lease lease = this.semaphore3.acquire(10, TimeUnit.SECONDS);
		lease.close();
	}

	/**
	 * A new mutex on the contended path, for one thread.
	 * @return the mutex
	 */
	public InterProcessMutex newContendedMutex() {
		return new InterProcessMutex(this.client, CONTENDED);
	}

	/**
	 * A new semaphore ({@value LockFixture#CONTENDED_PERMITS} leases) on the
	 * contended path, for one thread.
	 * @return the semaphore
	 */
	public InterProcessSemaphoreV2 newContendedSemaphore() {
		return new InterProcessSemaphoreV2(this.client, CONTENDED_SEMAPHORE, LockFixture.CONTENDED_PERMITS);
	}

	/**
	 * A new read/write lock on the contended path, for one thread.
	 * @return the lock
	 */
	public InterProcessReadWriteLock newContendedReadWriteLock() {
		return new InterProcessReadWriteLock(this.client, CONTENDED_READ_WRITE);
	}

	/**
	 * The mutex on the contended path that all threads share.
	 * @return the mutex
	 */
	public InterProcessMutex sharedContendedMutex() {
		return this.sharedContendedMutex;
	}

}
