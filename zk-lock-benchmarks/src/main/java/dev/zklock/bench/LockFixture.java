package dev.zklock.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;

/**
 * Everything a benchmark fork locks with, all on the one Curator client of the
 * Spring context: zk-lock's proxy and template, the raw Curator recipes, the raw
 * ZooKeeper handle and Spring Integration's registry. Every contender locks
 * paths of the same depth.
 */
@State(Scope.Benchmark)
public class LockFixture {

	/**
	 * The key of the uncontended runs.
	 */
	public static final String KEY = "k";

	/**
	 * The key every contended thread wants.
	 */
	public static final String CONTENDED_KEY = "one";

	/**
	 * Permits of the contended semaphore rows.
	 */
	public static final int CONTENDED_PERMITS = 3;

	private static final String RAW_PARENT = "/bench/zookeeper/mutex/" + KEY;

	private static final String CURATOR_MUTEX = "/bench/curator/mutex/" + KEY;

	private static final String CURATOR_RW = "/bench/curator/rw/" + KEY;

	private static final String CURATOR_SEMAPHORE = "/bench/curator/semaphore/" + KEY;

	private static final String CURATOR_SEMAPHORE3 = "/bench/curator/semaphore3/" + KEY;

	private static final String CURATOR_CONTENDED = "/bench/curator/contended/" + CONTENDED_KEY;

	private static final String CURATOR_CONTENDED_SEMAPHORE = "/bench/curator/contended-semaphore/" + CONTENDED_KEY;

	private static final String CURATOR_CONTENDED_RW = "/bench/curator/contended-rw/" + CONTENDED_KEY;


	private static final byte[] NO_DATA = new byte[0];

	private BenchContext context;

	private CuratorFramework client;

	private LockedService service;

	private LockTemplate template;

	private ZooKeeper zooKeeper;

	private InterProcessMutex curatorMutex;

	private InterProcessReadWriteLock curatorReadWrite;

	private InterProcessSemaphoreV2 curatorSemaphore;

	private InterProcessSemaphoreV2 curatorSemaphore3;

	private InterProcessMutex sharedContendedMutex;

	private ZookeeperLockRegistry lockRegistry;

	private ZookeeperLockRegistry contendedLockRegistry;

	/**
	 * Start the Spring context and create the raw recipes.
	 * @throws Exception when ZooKeeper fails
	 */
	@Setup(Level.Trial)
	public void start() throws Exception {
		this.context = BenchContext.start();
		this.client = this.context.client();
		this.service = this.context.service();
		this.template = this.context.template();
		this.zooKeeper = this.client.getZookeeperClient().getZooKeeper();
		try {
			this.client.create().creatingParentsIfNeeded().forPath(RAW_PARENT);
		}
		catch (KeeperException.NodeExistsException ex) {
			// made by an earlier fork, or by the other JVM of a two-JVM run
		}
		this.curatorMutex = new InterProcessMutex(this.client, CURATOR_MUTEX);
		this.curatorReadWrite = new InterProcessReadWriteLock(this.client, CURATOR_RW);
		this.curatorSemaphore = new InterProcessSemaphoreV2(this.client, CURATOR_SEMAPHORE, 1);
		this.curatorSemaphore3 = new InterProcessSemaphoreV2(this.client, CURATOR_SEMAPHORE3, 3);
		this.sharedContendedMutex = new InterProcessMutex(this.client, CURATOR_CONTENDED);
		this.lockRegistry = new ZookeeperLockRegistry(this.client, "/bench/spring-integration/mutex");
		this.contendedLockRegistry = new ZookeeperLockRegistry(this.client, "/bench/spring-integration/contended");
	}

	/**
	 * Close everything.
	 */
	@TearDown(Level.Trial)
	public void stop() {
		this.lockRegistry.destroy();
		this.contendedLockRegistry.destroy();
		this.context.close();
	}

	/**
	 * The Curator client.
	 * @return the client
	 */
	public CuratorFramework client() {
		return this.client;
	}

	/**
	 * The Spring context.
	 * @return the context
	 */
	public BenchContext context() {
		return this.context;
	}

	/**
	 * The annotated bean behind its proxy.
	 * @return the proxy
	 */
	public LockedService service() {
		return this.service;
	}

	/**
	 * One cycle of the annotated method of a mode, through the proxy.
	 * @param mode {@code MUTEX}, {@code READ}, {@code WRITE}, {@code SEMAPHORE1} or
	 * {@code SEMAPHORE3} (one or three permits)
	 */
	public void annotated(String mode) {
		switch (mode) {
			case "READ" -> this.service.read(KEY);
			case "WRITE" -> this.service.write(KEY);
			case "SEMAPHORE1" -> this.service.semaphore(KEY);
			case "SEMAPHORE3" -> this.service.semaphore3(KEY);
			default -> this.service.mutex(KEY);
		}
	}

	/**
	 * One cycle of Curator's own recipe for a mode, one instance reused.
	 * @param mode as for {@link #annotated(String)}
	 * @throws Exception when ZooKeeper fails
	 */
	public void curator(String mode) throws Exception {
		switch (mode) {
			case "READ" -> curatorRead();
			case "WRITE" -> curatorWrite();
			case "SEMAPHORE1" -> curatorSemaphore();
			case "SEMAPHORE3" -> curatorSemaphore3();
			default -> curatorMutex();
		}
	}

	/**
	 * The floor: one ephemeral sequential node created and deleted.
	 * @throws Exception when ZooKeeper fails
	 */
	public void zooKeeperCreateDelete() throws Exception {
		String node = this.zooKeeper.create(RAW_PARENT + "/lock-", NO_DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE,
				CreateMode.EPHEMERAL_SEQUENTIAL);
		this.zooKeeper.delete(node, -1);
	}

	/**
	 * Raw Curator mutex, one instance reused.
	 * @throws Exception when ZooKeeper fails
	 */
	public void curatorMutex() throws Exception {
		this.curatorMutex.acquire(10, TimeUnit.SECONDS);
		this.curatorMutex.release();
	}

	/**
	 * Raw Curator read lock, one instance reused.
	 * @throws Exception when ZooKeeper fails
	 */
	public void curatorRead() throws Exception {
		this.curatorReadWrite.readLock().acquire(10, TimeUnit.SECONDS);
		this.curatorReadWrite.readLock().release();
	}

	/**
	 * Raw Curator write lock, one instance reused.
	 * @throws Exception when ZooKeeper fails
	 */
	public void curatorWrite() throws Exception {
		this.curatorReadWrite.writeLock().acquire(10, TimeUnit.SECONDS);
		this.curatorReadWrite.writeLock().release();
	}

	/**
	 * Raw Curator semaphore with one permit, one instance reused.
	 * @throws Exception when ZooKeeper fails
	 */
	public void curatorSemaphore() throws Exception {
		Lease lease = this.curatorSemaphore.acquire(10, TimeUnit.SECONDS);
		lease.close();
	}

	/**
	 * Raw Curator semaphore with three permits, one instance reused.
	 * @throws Exception when ZooKeeper fails
	 */
	public void curatorSemaphore3() throws Exception {
		Lease lease = this.curatorSemaphore3.acquire(10, TimeUnit.SECONDS);
		lease.close();
	}

	/**
	 * zk-lock's template, with a request built per call as an application would.
	 */
	// NullAway false positive: execute's T extends @Nullable Object, so null is a valid result.
	// NullAway infers a non-null T from the lambda, and an explicit <@Nullable Void> fails on
	// JDK 17, whose javac does not read that bound from LockTemplate's class file (JDK 22 does)
	@SuppressWarnings("NullAway")
	public void template() {
		this.template.execute(LockRequest.named("template").keys(KEY).build(), () -> null);
	}

	/**
	 * Spring Integration's registry with {@link Lock#lock()}.
	 */
	public void springIntegrationLock() {
		Lock lock = this.lockRegistry.obtain(KEY);
		lock.lock();
		lock.unlock();
	}

	/**
	 * Spring Integration's registry with a timed {@link Lock#tryLock(long, TimeUnit)},
	 * the form that matches a lock with a timeout.
	 * @throws InterruptedException when interrupted
	 */
	public void springIntegrationTryLock() throws InterruptedException {
		Lock lock = this.lockRegistry.obtain(KEY);
		if (lock.tryLock(10, TimeUnit.SECONDS)) {
			lock.unlock();
		}
		else {
			throw new IllegalStateException("Spring Integration lock not acquired in 10 s");
		}
	}

	/**
	 * A new raw Curator mutex on the contended path, for one thread.
	 * @return the mutex
	 */
	public InterProcessMutex newContendedMutex() {
		return new InterProcessMutex(this.client, CURATOR_CONTENDED);
	}

	/**
	 * A new raw Curator semaphore ({@value #CONTENDED_PERMITS} leases) on the contended
	 * path, for one thread.
	 * @return the semaphore
	 */
	public InterProcessSemaphoreV2 newContendedSemaphore() {
		return new InterProcessSemaphoreV2(this.client, CURATOR_CONTENDED_SEMAPHORE, CONTENDED_PERMITS);
	}

	/**
	 * A new raw Curator read/write lock on the contended path, for one thread.
	 * @return the lock
	 */
	public InterProcessReadWriteLock newContendedReadWriteLock() {
		return new InterProcessReadWriteLock(this.client, CURATOR_CONTENDED_RW);
	}

	/**
	 * The raw Curator mutex on the contended path that all threads share.
	 * @return the mutex
	 */
	public InterProcessMutex sharedContendedMutex() {
		return this.sharedContendedMutex;
	}

	/**
	 * Spring Integration's lock on the contended key, which its registry shares
	 * between threads.
	 * @return the lock
	 */
	public Lock contendedSpringIntegrationLock() {
		return this.contendedLockRegistry.obtain(CONTENDED_KEY);
	}

}
