package dev.zklock.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.actuate.LocksEndpoint.LockDescriptor;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.testsupport.StoppableZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The local view of {@code /actuator/locks} through a connection outage: fencing
 * tokens of held locks, and the in-doubt state while the connection is suspended.
 */
class LocksEndpointTests {

	private StoppableZooKeeper server;

	private CuratorFramework client;

	private CuratorLockManager manager;

	private LocksEndpoint endpoint;

	@BeforeEach
	void start() {
		this.server = StoppableZooKeeper.start();
		this.client = this.server.newClient(4_000);
		this.manager = new CuratorLockManager(this.client, "/endpoint-" + UUID.randomUUID(), Duration.ofSeconds(5));
		this.endpoint = new LocksEndpoint(() -> this.manager, new LockQueueReader(this.client));
	}

	@AfterEach
	void stop() {
		this.client.close();
		this.server.close();
	}

	@Test
	void heldLocksShowTheirTokenAndTurnInDoubtWhileSuspended() {
		try (LockHandle handle = this.manager.acquire(LockRequest.named("orders").keys("7").build())) {
			LockDescriptor held = single();
			assertThat(held.state()).isEqualTo("HELD");
			assertThat(held.fencingToken()).isEqualTo(handle.fencingToken());
			this.server.stop();
			await().atMost(Duration.ofSeconds(10)).until(() -> single().state().equals("IN_DOUBT"));
			assertThat(this.endpoint.locks().held()).isZero();
			this.server.restart();
			await().atMost(Duration.ofSeconds(20)).until(() -> single().state().equals("HELD"));
			assertThat(single().fencingToken()).isEqualTo(handle.fencingToken());
		}
		assertThat(this.endpoint.locks().locks()).isEmpty();
	}

	@Test
	void everyHeldLockHasATokenAndOnlyWaitersHaveNone() throws Exception {
		List<LockHandle> handles = new ArrayList<>();
		CountDownLatch waiting = new CountDownLatch(1);
		try {
			handles.add(this.manager.acquire(LockRequest.named("orders").keys("mutex").build()));
			handles.add(this.manager.acquire(LockRequest.named("orders").keys("mutex").build()));
			handles.add(this.manager.acquire(LockRequest.named("orders").keys("read").mode(LockMode.READ).build()));
			handles.add(this.manager.acquire(LockRequest.named("orders").keys("write").mode(LockMode.WRITE).build()));
			handles.add(this.manager.acquire(LockRequest.named("orders").keys("write").mode(LockMode.READ).build()));
			handles.add(this.manager
				.acquire(LockRequest.named("orders").keys("semaphore").mode(LockMode.SEMAPHORE).permits(2).build()));
			handles.add(this.manager.acquire(LockRequest.named("orders").keys("multi-1", "multi-2").build()));
			Thread waiter = new Thread(() -> {
				try (LockHandle handle = this.manager
					.acquire(LockRequest.named("orders").keys("mutex").timeout(Duration.ofSeconds(30)).build())) {
					waiting.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}, "waiter");
			waiter.start();
			await().atMost(Duration.ofSeconds(10)).until(() -> this.endpoint.locks().waiting() == 1);
			List<LockDescriptor> locks = this.endpoint.locks().locks();
			assertThat(locks).filteredOn((lock) -> lock.state().equals("HELD"))
				.extracting(LockDescriptor::key)
				.containsExactlyInAnyOrder("mutex", "read", "write", "write", "semaphore", "multi-1", "multi-2");
			assertThat(locks).filteredOn((lock) -> lock.state().equals("HELD"))
				.allSatisfy((lock) -> assertThat(lock.fencingToken()).as("%s", lock).isPositive());
			assertThat(locks).filteredOn((lock) -> lock.state().equals("WAITING"))
				.singleElement()
				.satisfies((lock) -> assertThat(lock.fencingToken()).isNull());
			for (int i = handles.size() - 1; i >= 0; i--) {
				handles.remove(i).close();
			}
			waiting.countDown();
			waiter.join(10_000);
			assertThat(waiter.isAlive()).isFalse();
		}
		finally {
			waiting.countDown();
			for (int i = handles.size() - 1; i >= 0; i--) {
				handles.get(i).close();
			}
		}
		assertThat(this.endpoint.locks().locks()).isEmpty();
	}

	@Test
	void aLockTurningHeldNeverShowsWithoutAToken() throws Exception {
		int cycles = 300;
		CompletableFuture<Void> done = new CompletableFuture<>();
		// the first hold lasts until the endpoint has shown it: the HELD check below cannot pass by luck
		CountDownLatch heldSeen = new CountDownLatch(1);
		Thread worker = new Thread(() -> {
			try {
				for (int i = 0; i < cycles; i++) {
					try (LockHandle handle = this.manager.acquire(LockRequest.named("orders").keys("hot").build())) {
						assertThat(handle.isAcquired()).isTrue();
						if (i == 0) {
							assertThat(heldSeen.await(20, TimeUnit.SECONDS)).as("the endpoint showed the hold").isTrue();
						}
					}
				}
				done.complete(null);
			}
			catch (Throwable ex) {
				done.completeExceptionally(ex);
			}
		}, "cycler");
		worker.start();
		Map<String, Integer> seen = new HashMap<>();
		while (!done.isDone()) {
			for (LockDescriptor lock : this.endpoint.locks().locks()) {
				seen.merge(lock.state(), 1, Integer::sum);
				if (lock.state().equals("HELD")) {
					heldSeen.countDown();
				}
				if (lock.state().equals("WAITING")) {
					assertThat(lock.fencingToken()).as("%s", lock).isNull();
				}
				else {
					assertThat(lock.fencingToken()).as("%s", lock).isNotNull().isPositive();
				}
			}
		}
		done.get();
		assertThat(seen).as("states seen %s", seen).containsKey("HELD");
	}

	private LockDescriptor single() {
		assertThat(this.endpoint.locks().locks()).hasSize(1);
		return this.endpoint.locks().locks().get(0);
	}

}
