package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.utils.DefaultTracerDriver;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Local hand-off: this process's waiters queue behind one node of its own, and a
 * release passes the key to the next of them without ZooKeeper while the tenure
 * lasts; once another process waits, the tenure ends after its bounded passes.
 */
class LocalHandoffTests extends AbstractZooKeeperTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	static LockRequest.Builder hot(LockMode mode) {
		return LockRequest.named("hot").keys("k").mode(mode).localHandoff(true).timeout(WAIT);
	}

	@Test
	void localWaitersShareOneNodeAndEachPassCostsNoZooKeeperOperation() throws Exception {
		int waiters = 20;
		RoundTripTests.Operations operations = new RoundTripTests.Operations();
		List<Long> tokens = new CopyOnWriteArrayList<>();
		List<Thread> threads = new ArrayList<>();
		try {
			try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, hot(LockMode.MUTEX).build())) {
				for (int i = 0; i < waiters; i++) {
					threads.add(startHolder(hot(LockMode.MUTEX).build(), tokens, null));
				}
				await().atMost(WAIT).until(() -> this.manager.getRegistry().waitingCount() == waiters);
				assertThat(ephemeralNodes()).hasSize(1);
				client.getZookeeperClient().setTracerDriver(operations);
				operations.start(this.basePath);
			}
			for (Thread thread : threads) {
				thread.join(WAIT.toMillis());
			}
			await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
		}
		finally {
			client.getZookeeperClient().setTracerDriver(new DefaultTracerDriver());
		}
		List<String> seen = operations.stop();
		assertThat(tokens).hasSize(waiters).containsOnly(tokens.get(0));
		// the tenure's one delete at its end: no create, and no delete per pass
		assertThat(seen).noneMatch((name) -> name.contains("Create"));
		assertThat(seen.stream().filter((name) -> name.contains("Delete"))).hasSize(1);
		assertThat(this.manager.getLocalHandoffs().localHandoffs()).isEqualTo(waiters);
		assertThat(this.manager.getLocalHandoffs().zooKeeperHandoffs()).isEqualTo(1);
		assertThat(this.manager.getLocalHandoffs().tenures()).isEmpty();
	}

	@Test
	void onceAnotherProcessWaitsATenureEndsAfterItsMaxPasses() throws Exception {
		this.manager.setLocalHandoffLimits(2, Duration.ofMinutes(1));
		List<String> order = new CopyOnWriteArrayList<>();
		List<Long> tokens = new CopyOnWriteArrayList<>();
		List<Thread> threads = new ArrayList<>();
		CompletableFuture<Long> remoteToken = new CompletableFuture<>();
		long first;
		try (LockHandle holder = this.manager.acquire(hot(LockMode.MUTEX).build())) {
			first = holder.fencingToken();
			for (int i = 0; i < 4; i++) {
				int waiting = i + 1;
				threads.add(startHolder(hot(LockMode.MUTEX).build(), tokens, () -> order.add("local-" + waiting)));
				await().atMost(WAIT).until(() -> this.manager.getRegistry().waitingCount() == waiting);
			}
			Thread remote = new Thread(() -> {
				try (LockHandle handle = otherManager().acquire(hot(LockMode.MUTEX).build())) {
					order.add("other");
					remoteToken.complete(handle.fencingToken());
				}
			}, "other-process");
			remote.start();
			threads.add(remote);
			await().atMost(WAIT).until(() -> queueNodes().size() == 2);
			await("the tenure learns that another process waits").atMost(WAIT)
				.until(() -> this.manager.getLocalHandoffs().tenures().get(0).othersWaiting());
		}
		for (Thread thread : threads) {
			thread.join(WAIT.toMillis());
		}
		assertThat(order).containsExactly("local-1", "local-2", "other", "local-3", "local-4");
		assertThat(tokens.subList(0, 2)).containsOnly(first);
		assertThat(remoteToken.get()).isGreaterThan(first);
		assertThat(tokens.subList(2, 4)).containsOnly(tokens.get(2));
		assertThat(tokens.get(2)).isGreaterThan(remoteToken.get());
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void localReadersShareOneNodeUntilAWriterWaits() throws Exception {
		CompletableFuture<Long> writer = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try (LockHandle handle = otherManager().acquire(hot(LockMode.WRITE).build())) {
				writer.complete(handle.fencingToken());
			}
		}, "writer");
		long readers;
		try (LockHandle first = this.manager.acquire(hot(LockMode.READ).build())) {
			AsyncLockHandle second = this.asyncManager.acquire(hot(LockMode.READ).timeout(Duration.ZERO).build())
				.get(30, TimeUnit.SECONDS);
			assertThat(second.isAcquired()).isTrue();
			assertThat(second.fencingToken()).isEqualTo(first.fencingToken());
			readers = first.fencingToken();
			assertThat(ephemeralNodes()).hasSize(1);
			thread.start();
			await().atMost(WAIT).until(() -> queueNodes().size() == 2);
			await().atMost(WAIT).until(() -> this.manager.getLocalHandoffs().tenures().get(0).othersWaiting());
			assertThat(acquireInOtherThread(hot(LockMode.READ).timeout(Duration.ofMillis(200)).build()))
				.as("a new local reader beside a waiting writer")
				.isFalse();
			assertThat(writer).isNotDone();
			second.release().get(30, TimeUnit.SECONDS);
		}
		assertThat(writer.get(30, TimeUnit.SECONDS)).isGreaterThan(readers);
		thread.join(WAIT.toMillis());
		try (LockHandle after = this.manager.acquire(hot(LockMode.READ).build())) {
			assertThat(after.fencingToken()).isGreaterThan(writer.get());
		}
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
	}

	@Test
	void aLocalWaiterThatGivesUpLeavesTheKeyToTheNext() throws Exception {
		List<Long> tokens = new CopyOnWriteArrayList<>();
		Thread next;
		try (LockHandle holder = this.manager.acquire(hot(LockMode.WRITE).build())) {
			assertThat(acquireInOtherThread(hot(LockMode.WRITE).timeout(Duration.ofMillis(150)).build())).isFalse();
			next = startHolder(hot(LockMode.WRITE).build(), tokens, null);
			await().atMost(WAIT).until(() -> this.manager.getRegistry().waitingCount() == 1);
		}
		next.join(WAIT.toMillis());
		assertThat(tokens).hasSize(1);
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
	}

	@Test
	void closingTheManagerEndsTheWaitsOfLocalWaitersQueuedBehindItsTenure() throws Exception {
		int waiters = 3;
		List<CompletableFuture<Throwable>> ended = new ArrayList<>();
		try (LockHandle holder = this.manager.acquire(hot(LockMode.MUTEX).build())) {
			for (int i = 0; i < waiters; i++) {
				CompletableFuture<Throwable> end = new CompletableFuture<>();
				ended.add(end);
				new Thread(() -> {
					try (LockHandle handle = this.manager.acquire(hot(LockMode.MUTEX).build())) {
						end.complete(null);
					}
					catch (Throwable ex) {
						end.complete(ex);
					}
				}, "local-waiter-" + i).start();
			}
			await().atMost(WAIT).until(() -> this.manager.getRegistry().waitingCount() == waiters);
			// their 30 s timeout is far off: the close, not the deadline, must end the waits
			this.manager.close();
			for (CompletableFuture<Throwable> end : ended) {
				assertThat(end.get(10, TimeUnit.SECONDS)).isInstanceOf(LockException.class)
					.hasMessageContaining("'hot'");
			}
			assertThat(this.manager.getRegistry().waitingCount()).isZero();
			assertThat(holder.isHeld()).isTrue();
		}
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
	}

	@Test
	void asynchronousHoldersPassTheKeyToo() throws Exception {
		AsyncLockHandle first = this.asyncManager.acquire(hot(LockMode.MUTEX).build()).get(30, TimeUnit.SECONDS);
		List<CompletableFuture<Long>> tokens = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			// each releases as soon as it is granted, in whatever order the waiters joined
			tokens.add(this.asyncManager.acquire(hot(LockMode.MUTEX).build()).thenCompose((handle) -> {
				long token = handle.fencingToken();
				return handle.release().thenApply((ignored) -> token);
			}));
		}
		await().atMost(WAIT).until(() -> this.manager.getRegistry().waitingCount() == 5);
		assertThat(ephemeralNodes()).hasSize(1);
		long token = first.fencingToken();
		first.release().get(30, TimeUnit.SECONDS);
		for (CompletableFuture<Long> granted : tokens) {
			assertThat(granted.get(30, TimeUnit.SECONDS)).as("the tenure's token").isEqualTo(token);
		}
		assertThat(this.manager.getLocalHandoffs().localHandoffs()).isEqualTo(5);
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
	}

	@Test
	void aThousandLocalWaitersCostOneNodeAndNoOperationEach() throws Exception {
		int waiters = 1000;
		// starting 1,000 threads can outlast deadlock detection's `after` on a slow machine: a local waiter that holds
		// nothing is not published, so the count stays zero past it too
		RoundTripTests.Operations operations = new RoundTripTests.Operations();
		List<Long> tokens = new CopyOnWriteArrayList<>();
		List<Thread> threads = new ArrayList<>();
		try (LockHandle remote = otherManager().acquire(hot(LockMode.MUTEX).localHandoff(false).build())) {
			threads.add(startHolder(hot(LockMode.MUTEX).build(), tokens, null));
			await().atMost(WAIT).until(() -> queueNodes().size() == 2);
			client.getZookeeperClient().setTracerDriver(operations);
			operations.start(this.basePath);
			for (int i = 1; i < waiters; i++) {
				threads.add(startHolder(hot(LockMode.MUTEX).build(), tokens, null));
			}
			await().atMost(WAIT).until(() -> this.manager.getRegistry().waitingCount() == waiters);
			assertThat(operations.stop()).as("ZooKeeper operations of 999 more waiters").isEmpty();
			assertThat(ephemeralNodes()).as("the other process's node and our tenure's").hasSize(2);
		}
		finally {
			client.getZookeeperClient().setTracerDriver(new DefaultTracerDriver());
		}
		for (Thread thread : threads) {
			thread.join(WAIT.toMillis());
		}
		assertThat(tokens).hasSize(waiters);
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
	}

	@Test
	void minHoldDelaysThePassUntilItHasPassed() throws Exception {
		List<Long> tokens = new CopyOnWriteArrayList<>();
		CountDownLatch granted = new CountDownLatch(1);
		long start = System.nanoTime();
		LockHandle held = this.manager.acquire(hot(LockMode.MUTEX).minHold(Duration.ofMillis(400)).build());
		Thread next = startHolder(hot(LockMode.MUTEX).build(), tokens, granted::countDown);
		await().atMost(WAIT).until(() -> this.manager.getRegistry().waitingCount() == 1);
		long token = held.fencingToken();
		held.close();
		assertThat(granted.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
		next.join(WAIT.toMillis());
		assertThat(tokens).containsExactly(token);
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
	}

	@Test
	void aSingleTryFailsAtOnceBehindALocalHolder() throws Exception {
		RoundTripTests.Operations operations = new RoundTripTests.Operations();
		try (LockHandle holder = this.manager.acquire(hot(LockMode.MUTEX).build())) {
			client.getZookeeperClient().setTracerDriver(operations);
			operations.start(this.basePath);
			assertThat(acquireInOtherThread(hot(LockMode.MUTEX).timeout(Duration.ZERO).build())).isFalse();
			assertThat(operations.stop()).isEmpty();
		}
		finally {
			client.getZookeeperClient().setTracerDriver(new DefaultTracerDriver());
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	private Thread startHolder(LockRequest request, List<Long> tokens, @Nullable Runnable onGrant) {
		Thread thread = new Thread(() -> {
			try (LockHandle handle = this.manager.acquire(request)) {
				if (handle.isAcquired()) {
					tokens.add(handle.fencingToken());
					if (onGrant != null) {
						onGrant.run();
					}
				}
			}
		}, "local-waiter");
		thread.start();
		return thread;
	}

}
