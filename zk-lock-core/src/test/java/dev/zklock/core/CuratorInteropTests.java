package dev.zklock.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * READ/WRITE and SEMAPHORE keep the node layout of Curator's
 * {@code InterProcessReadWriteLock} and {@code InterProcessSemaphoreV2}, so that
 * processes using Curator's classes directly (or an older zk-lock) and this one
 * exclude each other on the same path.
 */
class CuratorInteropTests extends AbstractZooKeeperTests {

	@Test
	void writeLockExcludesCuratorsReadWriteLockBothWays() throws Exception {
		String path = this.manager.pathFor("doc", "1");
		InterProcessReadWriteLock curator = new InterProcessReadWriteLock(client, path);
		LockRequest write = LockRequest.named("doc").keys("1").mode(LockMode.WRITE).timeout(Duration.ZERO).build();
		LockRequest read = LockRequest.named("doc").keys("1").mode(LockMode.READ).timeout(Duration.ZERO).build();
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager,
				LockRequest.named("doc").keys("1").mode(LockMode.WRITE).build())) {
			assertThat(curator.writeLock().acquire(0, TimeUnit.MILLISECONDS)).isFalse();
			assertThat(curator.readLock().acquire(0, TimeUnit.MILLISECONDS)).isFalse();
		}
		assertThat(curator.writeLock().acquire(5, TimeUnit.SECONDS)).isTrue();
		try {
			assertThat(acquireInOtherThread(write)).isFalse();
			assertThat(acquireInOtherThread(read)).isFalse();
		}
		finally {
			curator.writeLock().release();
		}
		assertThat(curator.readLock().acquire(5, TimeUnit.SECONDS)).isTrue();
		try {
			assertThat(acquireInOtherThread(read)).isTrue();
			assertThat(acquireInOtherThread(write)).isFalse();
		}
		finally {
			curator.readLock().release();
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	/**
	 * SEMAPHORE has its own protocol: its leases sit right under the lock path, and
	 * the {@code locks} and {@code leases} children that Curator's
	 * {@code InterProcessSemaphoreV2} leaves there are no leases and take no permit.
	 */
	@Test
	void semaphoreIgnoresTheNodesOfCuratorsSemaphore() throws Exception {
		String path = this.manager.pathFor("pool", "printer");
		InterProcessSemaphoreV2 curator = new InterProcessSemaphoreV2(client, path, 2);
		LockRequest request = LockRequest.named("pool").keys("printer").mode(LockMode.SEMAPHORE).permits(2)
			.timeout(Duration.ZERO).build();
		Lease curatorLease = curator.acquire(5, TimeUnit.SECONDS);
		assertThat(curatorLease).isNotNull();
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, request)) {
			assertThat(client.getChildren().forPath(path)).contains("leases", "locks")
				.anyMatch((child) -> child.contains("lease-2-"));
			assertThat(acquireInOtherThread(request)).isTrue();
		}
		finally {
			curator.returnLease(curatorLease);
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

}
