package dev.zklock.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One thread acquires and releases one key, over and over: the cost of a lock
 * cycle with nobody in the way. The sampled cycle times give the median and p99.
 * <p>
 * ZooKeeper syncs every write to disk, so a cycle takes about a millisecond and
 * the JIT needs some ten thousand cycles to compile the lock path: hence the long
 * warm-up, without which the rows with more code of their own look slower than
 * they are once compiled.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(1)
@Threads(1)
public class UncontendedBenchmarks {

	/**
	 * Raw ZooKeeper: create an ephemeral sequential node, delete it.
	 * @param fixture the locks
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void zooKeeperFloor(LockFixture fixture) throws Exception {
		fixture.zooKeeperCreateDelete();
	}

	/**
	 * Raw Curator {@code InterProcessMutex}.
	 * @param fixture the locks
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void curatorMutex(LockFixture fixture) throws Exception {
		fixture.curatorRecipes().mutex();
	}

	/**
	 * {@code @DistributedLock} MUTEX through the Spring proxy.
	 * @param fixture the locks
	 */
	@Benchmark
	public void annotatedMutex(LockFixture fixture) {
		fixture.service().mutex(LockFixture.KEY);
	}

	/**
	 * {@code @DistributedLock} MUTEX through the Spring proxy, with zk-lock's
	 * Micrometer metrics on a {@code SimpleMeterRegistry}.
	 * @param fixture the locks, with metrics
	 */
	@Benchmark
	public void annotatedMutexWithMetrics(MetricsFixture fixture) {
		fixture.service().mutex(LockFixture.KEY);
	}

	/**
	 * {@code LockTemplate.execute} MUTEX.
	 * @param fixture the locks
	 */
	@Benchmark
	public void templateMutex(LockFixture fixture) {
		fixture.template();
	}

	/**
	 * Spring Integration's {@code ZookeeperLockRegistry}, {@code lock()}.
	 * @param fixture the locks
	 */
	@Benchmark
	public void springIntegrationLock(LockFixture fixture) {
		fixture.springIntegration().lock();
	}

	/**
	 * Spring Integration's {@code ZookeeperLockRegistry}, {@code tryLock(10 s)}.
	 * @param fixture the locks
	 * @throws InterruptedException when interrupted
	 */
	@Benchmark
	public void springIntegrationTryLock(LockFixture fixture) throws InterruptedException {
		fixture.springIntegration().tryLock();
	}

	/**
	 * Raw Curator read lock.
	 * @param fixture the locks
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void curatorRead(LockFixture fixture) throws Exception {
		fixture.curatorRecipes().read();
	}

	/**
	 * {@code @DistributedLock} READ.
	 * @param fixture the locks
	 */
	@Benchmark
	public void annotatedRead(LockFixture fixture) {
		fixture.service().read(LockFixture.KEY);
	}

	/**
	 * Raw Curator write lock.
	 * @param fixture the locks
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void curatorWrite(LockFixture fixture) throws Exception {
		fixture.curatorRecipes().write();
	}

	/**
	 * {@code @DistributedLock} WRITE.
	 * @param fixture the locks
	 */
	@Benchmark
	public void annotatedWrite(LockFixture fixture) {
		fixture.service().write(LockFixture.KEY);
	}

	/**
	 * Raw Curator {@code InterProcessSemaphoreV2}, one permit.
	 * @param fixture the locks
	 * @throws Exception when ZooKeeper fails
	 */
	@Benchmark
	public void curatorSemaphore(LockFixture fixture) throws Exception {
		fixture.curatorRecipes().semaphore();
	}

	/**
	 * {@code @DistributedLock} SEMAPHORE, one permit.
	 * @param fixture the locks
	 */
	@Benchmark
	public void annotatedSemaphore(LockFixture fixture) {
		fixture.service().semaphore(LockFixture.KEY);
	}

}
