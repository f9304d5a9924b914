package dev.zklock.core;

import java.lang.reflect.Field;
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
			CountDownLatch handlerFree = new CountDownLatch(1);
			CountDownLatch handlerBlocked = new CountDownLatch(1);
			// the handler's thread is kept busy, so the CONNECTED event waits behind this task
			lossHandler(locks).execute(() -> {
				handlerBlocked.countDown();
				try {
					handlerFree.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
			assertThat(handlerBlocked.await(10, TimeUnit.SECONDS)).isTrue();
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

	// the engine is private to the manager: reached by reflection, for its handler only
	private static ConnectionLossHandler lossHandler(CuratorLockManager manager) throws ReflectiveOperationException {
		Field engine = CuratorLockManager.class.getDeclaredField("engine");
		engine.setAccessible(true);
		return ((LockEngine) engine.get(manager)).lossHandler();
	}

}
