package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockInfo;
import dev.zklock.LockRequest;
import dev.zklock.LockState;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ZooKeeperProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link CuratorLockManager} beyond the lock contract.
 */
class CuratorLockManagerTests extends AbstractZooKeeperTests {

	@Test
	void registryShowsHeldAndWaitingLocks() throws Exception {
		LockRequest request = LockRequest.named("orders").keys("42").mode(LockMode.WRITE).build();
		String path = this.manager.pathFor("orders", "42");
		CompletableFuture<Boolean> waiterResult = new CompletableFuture<>();
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, request)) {
			Thread waiter = new Thread(() -> {
				boolean acquired;
				try (LockHandle handle = this.manager.acquire(request)) {
					acquired = handle.isAcquired();
				}
				waiterResult.complete(acquired);
			}, "waiter");
			waiter.start();
			await().atMost(Duration.ofSeconds(10)).until(() -> this.manager.getRegistry().waitingCount() == 1);
			assertThat(this.manager.getRegistry().heldCount()).isOne();
			assertThat(this.manager.getRegistry().snapshot()).extracting(LockInfo::threadName, LockInfo::state)
				.containsExactlyInAnyOrder(tuple("holder-orders", LockState.HELD), tuple("waiter", LockState.WAITING));
			assertThat(this.manager.getRegistry().snapshot()).allSatisfy((info) -> {
				assertThat(info.name()).isEqualTo("orders");
				assertThat(info.key()).isEqualTo("42");
				assertThat(info.path()).isEqualTo(path);
				assertThat(info.mode()).isEqualTo(LockMode.WRITE);
				assertThat(info.since()).isNotNull();
			});
		}
		assertThat(waiterResult.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		assertThat(this.manager.getRegistry().heldCount()).isZero();
		assertThat(this.manager.getRegistry().waitingCount()).isZero();
	}

	@Test
	void fencingTokenIsCreationZxidOfTheLockNodeAndGrows() throws Exception {
		String path = this.manager.pathFor("account", "7");
		long first;
		try (LockHandle handle = this.manager.acquire(LockRequest.named("account").keys("7").build())) {
			first = handle.fencingToken();
			List<String> children = client.getChildren().forPath(path);
			assertThat(children).hasSize(1);
			assertThat(first).isPositive()
				.isEqualTo(client.checkExists().forPath(path + "/" + children.get(0)).getCzxid());
			try (LockHandle nested = this.manager.acquire(LockRequest.named("account").keys("7").build())) {
				assertThat(nested.fencingToken()).isEqualTo(first);
			}
		}
		CompletableFuture<Long> second = new CompletableFuture<>();
		Thread other = new Thread(() -> {
			try (LockHandle handle = this.manager.acquire(LockRequest.named("account").keys("7").build())) {
				second.complete(handle.fencingToken());
			}
		});
		other.start();
		assertThat(second.get(10, TimeUnit.SECONDS)).isGreaterThan(first);
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void anInterruptBeforeCloseDoesNotFailTheRelease(LockMode mode) throws Exception {
		LockRequest request = LockRequest.named("interrupted").keys(mode.name()).mode(mode).permits(2).build();
		String path = this.manager.pathFor("interrupted", mode.name());
		LockHandle handle = this.manager.acquire(request);
		assertThat(lockNodes(path)).hasSize(1);
		Thread.currentThread().interrupt();
		try {
			handle.close();
			assertThat(Thread.currentThread().isInterrupted()).as("interrupt flag after close").isTrue();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(lockNodes(path)).isEmpty();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void anInterruptDuringTheReleaseDeleteDoesNotFailTheRelease(LockMode mode) throws Exception {
		LockRequest request = LockRequest.named("interrupted").keys(mode.name()).mode(mode).permits(2).build();
		try (ZooKeeperProxy proxy = ZooKeeperProxy.start("release", List.of(server.getPort()));
				CuratorFramework proxied = CuratorFrameworkFactory.newClient(proxy.connectString(), 30_000, 10_000,
						new RetryOneTime(100));
				CuratorLockManager manager = new CuratorLockManager(proxied, this.basePath, Duration.ofSeconds(30))) {
			proxied.start();
			assertThat(proxied.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
			String path = manager.pathFor("interrupted", mode.name());
			CountDownLatch acquired = new CountDownLatch(1);
			CountDownLatch close = new CountDownLatch(1);
			CompletableFuture<Boolean> flagAfterClose = new CompletableFuture<>();
			CompletableFuture<List<String>> nodesAfterClose = new CompletableFuture<>();
			Thread holder = new Thread(() -> {
				try {
					LockHandle handle = manager.acquire(request);
					acquired.countDown();
					close.await();
					handle.close();
					flagAfterClose.complete(Thread.interrupted());
					nodesAfterClose.complete(lockNodes(path));
				}
				catch (Throwable ex) {
					flagAfterClose.completeExceptionally(ex);
				}
			}, "holder-" + mode);
			holder.start();
			assertThat(acquired.await(10, TimeUnit.SECONDS)).isTrue();
			proxy.blackhole();
			close.countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> inZooKeeperRequest(holder));
			holder.interrupt();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> inZooKeeperRequest(holder) || holder.getState() == Thread.State.TERMINATED);
			proxy.pass();
			assertThat(flagAfterClose.get(30, TimeUnit.SECONDS)).as("interrupt flag after close").isTrue();
			assertThat(nodesAfterClose.get()).isEmpty();
			assertThat(manager.getRegistry().snapshot()).isEmpty();
		}
	}

	// Blocked waiting for a ZooKeeper reply: in a synchronous call, or a release awaiting its delete (a wait bounded
	// by the session, so TIMED_WAITING)
	private static boolean inZooKeeperRequest(Thread thread) {
		Thread.State state = thread.getState();
		return (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
				&& Arrays.stream(thread.getStackTrace()).anyMatch((frame) -> frame.getMethodName().equals("submitRequest")
					|| (frame.getClassName().equals(CuratorLockManager.class.getName())
							&& frame.getMethodName().equals("release")));
	}

	// Lock nodes of every recipe: direct children, or a semaphore's leases and queue
	private static List<String> lockNodes(String path) throws Exception {
		List<String> nodes = new ArrayList<>();
		for (String child : client.getChildren().forPath(path)) {
			if (child.equals("leases") || child.equals("locks")) {
				nodes.addAll(client.getChildren().forPath(path + "/" + child));
			}
			else {
				nodes.add(child);
			}
		}
		return nodes;
	}

	@Test
	void fencingTokenNeedsAnOpenAcquiredHandle() throws Exception {
		LockHandle closed = this.manager.acquire(LockRequest.named("a").keys("1").build());
		closed.close();
		assertThatIllegalStateException().isThrownBy(closed::fencingToken).withMessageContaining("'a'");
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, LockRequest.named("a").keys("1").build())) {
			LockHandle notAcquired = this.manager.acquire(LockRequest.named("a").keys("1").timeout(Duration.ZERO)
				.build());
			assertThat(notAcquired.isAcquired()).isFalse();
			assertThatIllegalStateException().isThrownBy(notAcquired::fencingToken).withMessageContaining("'a'");
		}
	}

	@Test
	void usesDefaultTimeoutWhenRequestHasNone() throws Exception {
		CuratorLockManager shortDefault = new CuratorLockManager(client, this.basePath, Duration.ofMillis(300));
		try (BackgroundHolder holder = BackgroundHolder.hold(shortDefault, LockRequest.named("n").keys("k").build())) {
			long start = System.nanoTime();
			try (LockHandle handle = shortDefault.acquire(LockRequest.named("n").keys("k").build())) {
				assertThat(handle.isAcquired()).isFalse();
			}
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(290),
					Duration.ofSeconds(10));
		}
	}

	@Test
	void handleMustBeClosedByItsThread() throws Exception {
		LockHandle handle = this.manager.acquire(LockRequest.named("n").keys("k").build());
		CompletableFuture<Throwable> failure = new CompletableFuture<>();
		Thread other = new Thread(() -> {
			try {
				handle.close();
				failure.complete(null);
			}
			catch (Throwable ex) {
				failure.complete(ex);
			}
		});
		other.start();
		assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(LockException.class)
			.hasMessageContaining("must be released by it");
		assertThat(handle.isAcquired()).isTrue();
		assertThat(ephemeralNodes()).hasSize(1);
		handle.close();
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void familiesOnTheSameNameAndKeyAreIndependent() throws Exception {
		try (LockHandle mutex = this.manager.acquire(LockRequest.named("n").keys("k").build())) {
			assertThat(acquireInOtherThread(
					LockRequest.named("n").keys("k").mode(LockMode.WRITE).timeout(Duration.ZERO).build()))
				.isTrue();
			assertThat(acquireInOtherThread(LockRequest.named("n").keys("k").timeout(Duration.ZERO).build())).isFalse();
		}
	}

	@Test
	void rejectsUnsafeBasePaths() {
		for (String basePath : new String[] { "/", "/zookeeper", "/zookeeper/quota", "locks", "", " ", null,
				"/locks//x" }) {
			assertThatIllegalArgumentException().as(basePath)
				.isThrownBy(() -> new CuratorLockManager(client, basePath, Duration.ofSeconds(1)))
				.withMessageContaining("zk-lock.base-path");
		}
		assertThat(new CuratorLockManager(client, "/locks/", Duration.ofSeconds(1)).getBasePath()).isEqualTo("/locks");
		assertThat(new CuratorLockManager(client, "/zookeeperish", Duration.ofSeconds(1)).pathFor("a", "b"))
			.isEqualTo("/zookeeperish/a/b");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new CuratorLockManager(client, "/locks", Duration.ofSeconds(-1)))
			.withMessageContaining("zk-lock.default-timeout");
	}

	@Test
	void refusesToLockWithAClientThatIsNotStarted() {
		try (CuratorFramework latent = CuratorFrameworkFactory.newClient(server.getConnectString(),
				new RetryOneTime(10))) {
			CuratorLockManager latentManager = new CuratorLockManager(latent, "/locks", Duration.ofSeconds(1));
			assertThatExceptionOfType(LockException.class)
				.isThrownBy(() -> latentManager.acquire(LockRequest.named("n").keys("k").build()))
				.withMessageContaining("'n'")
				.withMessageContaining("LATENT");
		}
	}

}
