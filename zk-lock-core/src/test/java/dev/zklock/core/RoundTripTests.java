package dev.zklock.core;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.curator.drivers.AdvancedTracerDriver;
import org.apache.curator.drivers.EventTrace;
import org.apache.curator.drivers.OperationTrace;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.utils.DefaultTracerDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing tokens and owner data cost no round trip: an uncontended acquire and
 * release issues three ZooKeeper operations in every mode (create, the queue read,
 * delete), and no read of the node after creating it: as many as Curator's own
 * recipe for MUTEX, READ and WRITE, fewer than {@code InterProcessSemaphoreV2},
 * which takes an internal lock before its lease.
 */
class RoundTripTests extends AbstractZooKeeperTests {

	private final Operations operations = new Operations();

	@BeforeEach
	void installTracer() {
		client.getZookeeperClient().setTracerDriver(this.operations);
	}

	@AfterEach
	void removeTracer() {
		client.getZookeeperClient().setTracerDriver(new DefaultTracerDriver());
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void acquireAndReleaseCostThreeOperationsInEveryMode(LockMode mode) throws Exception {
		LockRequest request = LockRequest.named("trip").keys("k").mode(mode).permits(2).build();
		String path = this.manager.pathFor("trip", "k");
		// first round creates the parent containers
		lockAndReleaseOurs(request);
		curatorRecipe(mode, path);
		this.operations.start(this.basePath);
		long token = lockAndReleaseOurs(request);
		List<String> ours = this.operations.stop();
		this.operations.start(this.basePath);
		curatorRecipe(mode, path);
		List<String> curators = this.operations.stop();
		System.out.printf("round trips: %s acquire+release: zk-lock %d %s, Curator's recipe %d%n", mode, ours.size(),
				ours, curators.size());
		assertThat(token).isPositive();
		assertThat(ours).hasSize(3).noneMatch((name) -> name.contains("Exists"));
		if (mode == LockMode.SEMAPHORE) {
			assertThat(curators).hasSizeGreaterThan(3);
		}
		else {
			assertThat(curators).hasSize(3);
		}
	}

	@ParameterizedTest
	@EnumSource(value = LockMode.class, names = { "MUTEX", "READ", "WRITE" })
	void localHandoffCostsTheSameThreeOperationsWhenUncontended(LockMode mode) throws Exception {
		LockRequest request = LockRequest.named("trip").keys("k").mode(mode).localHandoff(true).build();
		lockAndReleaseOurs(request);
		this.operations.start(this.basePath);
		long first = lockAndReleaseOurs(request);
		long second = lockAndReleaseOurs(request);
		List<String> ours = this.operations.stop();
		assertThat(second).as("each uncontended grant is a tenure of its own").isGreaterThan(first);
		assertThat(ours).hasSize(6).noneMatch((name) -> name.contains("Exists"));
	}

	private long lockAndReleaseOurs(LockRequest request) {
		try (LockHandle handle = this.manager.acquire(request)) {
			assertThat(handle.isAcquired()).isTrue();
			return handle.fencingToken();
		}
	}

	private static void curatorRecipe(LockMode mode, String path) throws Exception {
		switch (mode) {
			case MUTEX -> {
				InterProcessMutex mutex = new InterProcessMutex(client, path);
				assertThat(mutex.acquire(10, TimeUnit.SECONDS)).isTrue();
				mutex.release();
			}
			case READ, WRITE -> {
				InterProcessReadWriteLock lock = new InterProcessReadWriteLock(client, path);
				InterProcessMutex mutex = (mode == LockMode.READ) ? lock.readLock() : lock.writeLock();
				assertThat(mutex.acquire(10, TimeUnit.SECONDS)).isTrue();
				mutex.release();
			}
			case SEMAPHORE -> {
				InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, path, 2);
				Lease lease = semaphore.acquire(10, TimeUnit.SECONDS);
				assertThat(lease).isNotNull();
				semaphore.returnLease(lease);
			}
		}
	}

	/**
	 * Records the names of the ZooKeeper operations on paths under a root.
	 */
	static final class Operations extends AdvancedTracerDriver {

		private final List<String> names = new CopyOnWriteArrayList<>();

		private volatile String root;

		void start(String root) {
			this.names.clear();
			this.root = root;
		}

		List<String> stop() {
			this.root = null;
			return List.copyOf(this.names);
		}

		List<String> seen() {
			return List.copyOf(this.names);
		}

		@Override
		public void addTrace(OperationTrace trace) {
			String current = this.root;
			if (current != null && trace.getPath() != null && trace.getPath().startsWith(current)) {
				this.names.add(trace.getName());
			}
		}

		@Override
		public void addEvent(EventTrace trace) {
		}

	}

}
