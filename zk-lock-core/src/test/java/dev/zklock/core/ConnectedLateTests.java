package dev.zklock.core;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A manager built while its client still connects learns of the connection from
 * Curator's CONNECTED event, on the loss handler's thread. A lock granted before
 * that event is handled was granted over a working connection: it is held, not in
 * doubt. (The cause of a flaky {@code PlainJavaExampleTests} run: a busy machine
 * delayed the event past the grant.)
 */
class ConnectedLateTests extends AbstractZooKeeperTests {

	@Test
	void aLockGrantedBeforeTheConnectedEventIsHandledIsHeld() throws Exception {
		try (CuratorFramework late = CuratorFrameworkFactory.newClient(server.getConnectString(),
				new RetryOneTime(100));
				CuratorLockManager locks = new CuratorLockManager(late, this.basePath, Duration.ofSeconds(10))) {
			// the handler's thread is kept busy, so the CONNECTED event waits behind it
			CountDownLatch handlerFree = ZooKeeperTestSupport.occupy(ZooKeeperTestSupport.engine(locks).lossHandler());
			late.start();
			assertThat(late.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
			try (LockHandle handle = locks.acquire(LockRequest.named("late").keys("a").build())) {
				assertThat(handle.isAcquired()).isTrue();
				assertThat(locks.getRegistry().heldCount()).as("held, not in doubt").isEqualTo(1);
				assertThat(handle.isHeld()).isTrue();
			}
			finally {
				handlerFree.countDown();
			}
		}
	}

}
