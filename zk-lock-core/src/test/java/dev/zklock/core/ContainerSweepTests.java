package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ClassFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Lock parents are container nodes: once the locks are released, ZooKeeper's
 * container sweep removes them, so distinct keys do not pile up.
 */
class ContainerSweepTests {

	private static final int KEYS = 10_000;

	private static final int OTHER_MODE_KEYS = 100;

	private static final int THREADS = 8;

	@RegisterExtension
	static final ClassFixture<SweepingZooKeeper> zookeeper = ClassFixture.of(SweepingZooKeeper::start);

	private static CuratorFramework client() {
		return zookeeper.get().client();
	}

	@Test
	void sweepsParentsOfReleasedLocks() throws Exception {
		String basePath = "/sweep-" + UUID.randomUUID();
		CuratorLockManager manager = new CuratorLockManager(client(), basePath, Duration.ofSeconds(30));
		long start = System.nanoTime();
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				int offset = t;
				futures.add(pool.submit(() -> {
					for (int i = offset; i < KEYS; i += THREADS) {
						lockAndRelease(manager, "orders", "order-" + i, LockMode.MUTEX);
					}
					for (int i = offset; i < OTHER_MODE_KEYS; i += THREADS) {
						for (LockMode mode : List.of(LockMode.READ, LockMode.WRITE, LockMode.SEMAPHORE)) {
							lockAndRelease(manager, mode.name(), "key-" + i, mode);
						}
					}
					return null;
				}));
			}
			for (Future<?> future : futures) {
				future.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		long lockMillis = (System.nanoTime() - start) / 1_000_000;
		long remaining = descendants(basePath);
		long sweepStart = System.nanoTime();
		await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
			.until(() -> descendants(basePath) == 0);
		long sweepMillis = (System.nanoTime() - sweepStart) / 1_000_000;
		int total = KEYS + 3 * OTHER_MODE_KEYS;
		System.out.printf("containers: locked and released %d distinct keys (%d MUTEX, %d each READ, WRITE, SEMAPHORE) "
				+ "in %d ms (%.0f keys/s, %d threads); %d nodes left right after, swept to none in %d ms%n", total, KEYS,
				OTHER_MODE_KEYS, lockMillis, total * 1000.0 / lockMillis, THREADS, remaining, sweepMillis);
		assertThat(ZooKeeperTestSupport.ephemeralNodes(client(), basePath)).isEmpty();
	}

	private static void lockAndRelease(CuratorLockManager manager, String name, String key, LockMode mode) {
		try (LockHandle handle = manager.acquire(LockRequest.named(name).keys(key).mode(mode).permits(2).build())) {
			assertThat(handle.isAcquired()).isTrue();
		}
	}

	private static long descendants(String path) throws Exception {
		try {
			return client().getZookeeperClient().getZooKeeper().getAllChildrenNumber(path);
		}
		catch (KeeperException.NoNodeException ex) {
			return 0;
		}
	}

}
