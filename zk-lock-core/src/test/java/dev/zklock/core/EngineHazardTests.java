package dev.zklock.core;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockInfo;
import dev.zklock.LockLossReason;
import dev.zklock.LockRequest;
import dev.zklock.LockState;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Hazards of the engine's asynchronous and release paths: futures that never
 * complete, waits without bound, user work on Curator's event thread, a pool per
 * view, and owner data naming the wrong thread.
 */
class EngineHazardTests extends AbstractZooKeeperTests {

	private final Queue<String> events = new ConcurrentLinkedQueue<>();

	private final ExecutorService runner = Executors.newCachedThreadPool();

	@AfterEach
	void stopRunner() {
		this.runner.shutdownNow();
	}

	@Test
	void asyncAcquireStartedOnAClosedManagerFailsInsteadOfHanging() throws Exception {
		LockRequest request = LockRequest.named("closing").timeout(Duration.ofSeconds(2)).build();
		CountDownLatch gate = new CountDownLatch(1);
		Executor gated = (task) -> this.runner.execute(() -> {
			awaitQuietly(gate);
			task.run();
		});
		CuratorLockManager closing = new CuratorLockManager(client, this.basePath, Duration.ofSeconds(30));
		try (LockHandle held = otherManager().acquire(request)) {
			assertThat(held.isAcquired()).isTrue();
			AsyncLockManager async = closing.async(gated);
			async.setInstrumentations(List.of(recording()));
			CompletableFuture<AsyncLockHandle> result = async.acquire(request);
			// closed after the checks of acquire, before its start runs on the executor
			closing.close();
			gate.countDown();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockException.class)
				.withMessageContaining("'closing'")
				.withMessageContaining("closed");
			assertThat(this.events).containsExactly("failed LockException");
			assertThat(ephemeralNodes()).hasSize(1);
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void asyncWaitUnderWayWhenTheManagerClosesEndsWithItsNodeRemoved() throws Exception {
		LockRequest request = LockRequest.named("closing-wait").timeout(Duration.ofSeconds(2)).build();
		CuratorLockManager closing = new CuratorLockManager(client, this.basePath, Duration.ofSeconds(30));
		try (LockHandle held = otherManager().acquire(request)) {
			assertThat(held.isAcquired()).isTrue();
			CompletableFuture<AsyncLockHandle> result = closing.async(null).acquire(request);
			await().atMost(Duration.ofSeconds(10)).until(() -> closing.getRegistry().waitingCount() == 1);
			// the close stops the timer that would have ended this wait after two seconds
			closing.close();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockException.class)
				.withMessageContaining("'closing-wait'");
			await().atMost(Duration.ofSeconds(10)).until(() -> queueNodes().size() == 1);
		}
	}

	@Test
	void asyncWaitArmedOnAClosedEngineTimerEndsInsteadOfOutlivingItsTimeout() throws Exception {
		LockRequest request = LockRequest.named("untimed").keys("k").build();
		LockEngine engine = new LockEngine(client, this.basePath, Duration.ofSeconds(30));
		try (LockHandle held = this.manager.acquire(request)) {
			Acquisition acquisition = onAClosedEngineTimer(engine, "untimed", Duration.ofMillis(300));
			acquisition.armTimer();
			assertEndedAsAtShutdown(acquisition, "untimed");
			assertThat(client.getChildren().forPath(engine.pathFor("untimed", "k"))).as("the holder's node alone")
				.hasSize(1);
			assertThat(held.isHeld()).isTrue();
		}
		finally {
			engine.close();
		}
	}

	@Test
	void singleTryLimitedOnAClosedEngineTimerEndsInsteadOfWaitingForAnswersWithoutLimit() throws Exception {
		// a fresh engine has had no answer yet, so its single try at the deadline limits its wait on the timer
		LockEngine engine = new LockEngine(client, this.basePath, Duration.ofSeconds(30));
		CountDownLatch answersHeld = new CountDownLatch(1);
		CountDownLatch answersFreed = new CountDownLatch(1);
		// ZooKeeper's answers reach the engine on Curator's event thread: held, the try stays unanswered
		client.checkExists().inBackground((curator, event) -> {
			answersHeld.countDown();
			awaitQuietly(answersFreed);
		}).forPath("/");
		try {
			assertThat(answersHeld.await(10, TimeUnit.SECONDS)).as("the event thread held").isTrue();
			Acquisition acquisition = onAClosedEngineTimer(engine, "silent-try", Duration.ZERO);
			// as a blocking caller does at the end of its wait for the first answer
			acquisition.timeOut();
			assertEndedAsAtShutdown(acquisition, "silent-try");
			answersFreed.countDown();
			String path = engine.pathFor("silent-try", "k");
			await("the try's node deleted once ZooKeeper answers").atMost(Duration.ofSeconds(10))
				.until(() -> client.checkExists().forPath(path) == null || client.getChildren().forPath(path).isEmpty());
		}
		finally {
			answersFreed.countDown();
			engine.close();
		}
	}

	// A MUTEX wait for key "k" on an engine whose timer alone is closed, as a close that did not see the wait would
	// leave it: the timer that would end or limit it takes no task
	private static Acquisition onAClosedEngineTimer(LockEngine engine, String name, Duration timeout)
			throws ReflectiveOperationException {
		engineTimer(engine).close((task) -> false);
		return engine.acquireFor(null, name, LockMode.MUTEX, 1,
				List.of(new Acquisition.Target("k", engine.pathFor(name, "k"), null, 0)), timeout, false);
	}

	private static void assertEndedAsAtShutdown(Acquisition acquisition, String name) {
		await("the wait ends though the timer takes nothing").atMost(Duration.ofSeconds(10))
			.until(() -> acquisition.result().isDone());
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> acquisition.result().get())
			.havingCause()
			.isInstanceOf(LockException.class)
			.withMessageContaining("'" + name + "' key 'k'")
			.withMessageContaining("shutting down");
	}

	@Test
	void aRevocationQueuedWhenTheManagerClosesStillEndsItsHold() throws Exception {
		CuratorLockManager closing = new CuratorLockManager(client, this.basePath, Duration.ofSeconds(30));
		CountDownLatch busy = new CountDownLatch(1);
		CountDownLatch free = new CountDownLatch(1);
		try {
			Queue<LockLossReason> reasons = new ConcurrentLinkedQueue<>();
			closing.addLockLossListener((lock, reason) -> reasons.add(reason));
			LockHandle handle = closing.acquire(LockRequest.named("revoked-at-close").build());
			awaitWatched(closing);
			ConnectionLossHandler lossHandler = engine(closing).lossHandler();
			// the connection thread is busy, so the revocation below waits in its queue
			assertThat(lossHandler.execute(() -> {
				busy.countDown();
				awaitQuietly(free);
			})).isTrue();
			assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
			client.delete().forPath(handle.nodePath());
			await("the revocation queued").atMost(Duration.ofSeconds(10))
				.until(() -> !connectionQueue(lossHandler).isEmpty());
			closing.close();
			free.countDown();
			await("hold lost though the manager closed with its revocation queued").atMost(Duration.ofSeconds(10))
				.until(() -> !handle.isHeld());
			assertThat(reasons).containsExactly(LockLossReason.REVOKED);
			handle.close();
			assertThat(closing.getRegistry().snapshot()).isEmpty();
		}
		finally {
			free.countDown();
			closing.close();
		}
	}

	// the engine is private to the manager: reached by reflection, for its loss handler
	private static LockEngine engine(CuratorLockManager manager) throws ReflectiveOperationException {
		Field engine = CuratorLockManager.class.getDeclaredField("engine");
		engine.setAccessible(true);
		return (LockEngine) engine.get(manager);
	}

	// what waits for the connection thread, by reflection: the handler keeps its executor to itself
	private static BlockingQueue<Runnable> connectionQueue(ConnectionLossHandler handler)
			throws ReflectiveOperationException {
		Field executor = ConnectionLossHandler.class.getDeclaredField("executor");
		executor.setAccessible(true);
		return ((ThreadPoolExecutor) executor.get(handler)).getQueue();
	}

	// the engine's timer is private to it: reached by reflection, to close it alone
	private static EngineTimer engineTimer(LockEngine engine) throws ReflectiveOperationException {
		Field timer = LockEngine.class.getDeclaredField("timer");
		timer.setAccessible(true);
		return (EngineTimer) timer.get(engine);
	}

	@Test
	void asyncAcquireWhoseOwnerDataThrowsFailsWithLockException() throws Exception {
		this.asyncManager.setOwnerData(() -> {
			throw new IllegalStateException("owner data unavailable");
		});
		this.asyncManager.setInstrumentations(List.of(recording()));
		CompletableFuture<AsyncLockHandle> result = this.asyncManager
			.acquire(LockRequest.named("broken-owner").keys("7").build());
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(LockException.class)
			.withMessageContaining("'broken-owner'")
			.withRootCauseInstanceOf(IllegalStateException.class);
		assertThat(this.events).containsExactly("failed LockException");
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void combinedReleaseCompletesWhenAReleaseFailsWithAnUnexpectedException() throws Exception {
		IllegalStateException unexpected = new IllegalStateException("unexpected");
		LockException expected = new LockException("Could not release lock 'orders' key '2'");
		CompletableFuture<Void> all = HoldRelease.allReleased("orders", List.of(
				CompletableFuture.failedFuture(unexpected), CompletableFuture.failedFuture(expected),
				CompletableFuture.completedFuture(null)));
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> all.get(10, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(LockException.class)
			.withMessageContaining("'orders'")
			.withCause(unexpected)
			.satisfies((failure) -> assertThat(failure.getSuppressed()).containsExactly(expected));
	}

	@Test
	void combinedReleaseCompletesWhenOneExceptionFailedTwoReleases() throws Exception {
		LockException shared = new LockException("Could not release lock 'orders': connection lost");
		CompletableFuture<Void> all = HoldRelease.allReleased("orders",
				List.of(CompletableFuture.failedFuture(shared), CompletableFuture.failedFuture(shared)));
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> all.get(10, TimeUnit.SECONDS))
			.havingCause()
			.isSameAs(shared);
	}

	@Test
	void blockingReleaseWaitIsBoundedAndKeepsTheInterrupt() throws Exception {
		CompletableFuture<Boolean> interruptKept = new CompletableFuture<>();
		CompletableFuture<Throwable> failure = new CompletableFuture<>();
		CountDownLatch waiting = new CountDownLatch(1);
		Thread releaser = new Thread(() -> {
			waiting.countDown();
			try {
				CuratorLockManager.awaitRelease(() -> "'orders' key '42'", new CompletableFuture<>(), Duration.ofMillis(500));
			}
			catch (Throwable ex) {
				failure.complete(ex);
			}
			interruptKept.complete(Thread.currentThread().isInterrupted());
		}, "releaser");
		releaser.setDaemon(true);
		releaser.start();
		waiting.await(10, TimeUnit.SECONDS);
		releaser.interrupt();
		assertThat(interruptKept.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(failure.getNow(null)).isInstanceOf(LockException.class)
			.hasMessageContaining("The release of lock 'orders' key '42' was not confirmed");
	}

	@Test
	void rejectedDeliveryNeverRunsOnCuratorsEventThreadAndGivesTheLockBack() throws Exception {
		LockRequest request = LockRequest.named("rejected").timeout(Duration.ofSeconds(20)).build();
		AtomicBoolean accepting = new AtomicBoolean(true);
		Executor rejecting = (task) -> {
			// the start is accepted, the delivery is not
			if (!accepting.getAndSet(false)) {
				throw new RejectedExecutionException("saturated");
			}
			this.runner.execute(task);
		};
		AsyncLockManager async = this.manager.async(rejecting);
		CompletableFuture<String> continuationThread = new CompletableFuture<>();
		CompletableFuture<AsyncLockHandle> result;
		try (LockHandle held = otherManager().acquire(request)) {
			assertThat(held.isAcquired()).isTrue();
			result = async.acquire(request);
			result.whenComplete((handle, ex) -> continuationThread.complete(Thread.currentThread().getName()));
			await().atMost(Duration.ofSeconds(10)).until(() -> this.manager.getRegistry().waitingCount() == 1);
		}
		try {
			assertThat(continuationThread.get(10, TimeUnit.SECONDS)).doesNotContain("EventThread");
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockException.class)
				.withMessageContaining("'rejected'")
				.withMessageContaining("rejected");
			await().atMost(Duration.ofSeconds(10)).until(() -> ephemeralNodes().isEmpty());
			assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		}
		finally {
			result.thenAccept(AsyncLockHandle::release);
		}
	}

	@Test
	void rejectedReleaseDeliveryNeverRunsOnCuratorsEventThread() throws Exception {
		AtomicBoolean accepting = new AtomicBoolean(true);
		Executor rejecting = (task) -> {
			if (!accepting.get()) {
				throw new RejectedExecutionException("shut down");
			}
			this.runner.execute(task);
		};
		AsyncLockManager async = this.manager.async(rejecting);
		AsyncLockHandle handle = async.acquire(LockRequest.named("rejected-release").build()).get(10, TimeUnit.SECONDS);
		accepting.set(false);
		CompletableFuture<String> continuationThread = new CompletableFuture<>();
		CompletableFuture<Void> released = handle.release();
		released.whenComplete((ignored, ex) -> continuationThread.complete(Thread.currentThread().getName()));
		assertThat(continuationThread.get(10, TimeUnit.SECONDS)).doesNotContain("EventThread");
		assertThat(released.get(10, TimeUnit.SECONDS)).isNull();
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void asyncViewsWithoutAnExecutorShareOnePoolThatClosesWithTheManager() throws Exception {
		CuratorLockManager shared = new CuratorLockManager(client, this.basePath, Duration.ofSeconds(30));
		AsyncLockManager first = shared.async(null);
		AsyncLockManager second = shared.async(null);
		try {
			assertThat(second.getExecutor()).isSameAs(first.getExecutor());
			first.close();
			// closing a view leaves the pool to the manager: the other view still works
			AsyncLockHandle handle = second.acquire(LockRequest.named("shared").build()).get(10, TimeUnit.SECONDS);
			assertThat(handle.isAcquired()).isTrue();
			handle.release().get(10, TimeUnit.SECONDS);
		}
		finally {
			shared.close();
		}
		assertThat(((ExecutorService) first.getExecutor()).isShutdown()).isTrue();
	}

	@Test
	void asyncNodeOwnerDataNamesTheCallingThread() throws Exception {
		LockRequest request = LockRequest.named("owners").keys("9").build();
		CompletableFuture<CompletableFuture<AsyncLockHandle>> call = new CompletableFuture<>();
		Thread caller = new Thread(() -> call.complete(this.asyncManager.acquire(request)), "order-worker-9");
		caller.start();
		AsyncLockHandle handle = call.get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
		try {
			String path = this.manager.pathFor("owners", "9");
			List<String> nodes = client.getChildren().forPath(path);
			assertThat(nodes).hasSize(1);
			String data = new String(client.getData().forPath(path + "/" + nodes.get(0)), StandardCharsets.UTF_8);
			assertThat(data).contains("\"thread\":\"order-worker-9\"");
		}
		finally {
			handle.release().get(10, TimeUnit.SECONDS);
		}
	}

	@Test
	void locksReleasedAfterTheirClientClosedLeaveNothingBehind() throws Exception {
		onAClientTheApplicationCloses((closing, manager) -> {
			LockHandle blocking = manager.acquire(LockRequest.named("closed-client").keys("1").build());
			AsyncLockHandle async = manager.async(null)
				.acquire(LockRequest.named("closed-client").keys("2").build())
				.get(10, TimeUnit.SECONDS);
			Queue<LockLossReason> reasons = new ConcurrentLinkedQueue<>();
			manager.addLockLossListener((lock, reason) -> reasons.add(reason));
			awaitWatched(manager);
			closing.close();
			// the session closed with the client, and its nodes with it: the watches see the deletions, made by no
			// other client
			await().atMost(Duration.ofSeconds(10)).until(() -> ephemeralNodes().isEmpty());
			await().atMost(Duration.ofSeconds(10)).until(() -> reasons.size() == 2);
			assertThat(reasons).containsOnly(LockLossReason.SESSION_LOST);
			// lost with the session: the releases have nothing left to do
			blocking.close();
			async.release().get(10, TimeUnit.SECONDS);
			assertThat(manager.getRegistry().snapshot()).isEmpty();
		});
	}

	@Test
	void aLockReleasedRightAfterItsClientClosedLeavesNothingBehind() throws Exception {
		onAClientTheApplicationCloses((closing, manager) -> {
			Queue<LockLossReason> reasons = new ConcurrentLinkedQueue<>();
			manager.addLockLossListener((lock, reason) -> reasons.add(reason));
			LockHandle blocking = manager.acquire(LockRequest.named("closed-at-once").keys("1").build());
			LockHandle other = manager.acquire(LockRequest.named("closed-at-once").keys("2").build());
			// closed before the holds' revocation watches are armed (after 50 ms): no event tells the engine
			closing.close();
			blocking.close();
			assertThat(ephemeralNodes()).isEmpty();
			// not left RELEASING for a node that went with the session
			assertThat(manager.getRegistry().snapshot()).extracting(LockInfo::key).containsExactly("2");
			// the first sight of the closed client ends every hold of it, the one not released too
			assertThat(reasons).containsExactly(LockLossReason.SESSION_LOST, LockLossReason.SESSION_LOST);
			assertThat(other.isHeld()).isFalse();
			other.close();
			assertThat(manager.getRegistry().snapshot()).isEmpty();
		});
	}

	@Test
	void aHoldWhoseClientClosesBeforeItsWatchIsArmedIsLostWhenTheWatchIsDue() throws Exception {
		onAClientTheApplicationCloses((closing, manager) -> {
			Queue<LockLossReason> reasons = new ConcurrentLinkedQueue<>();
			manager.addLockLossListener((lock, reason) -> reasons.add(reason));
			LockHandle blocking = manager.acquire(LockRequest.named("closed-unwatched").keys("1").build());
			closing.close();
			// no release and no event: the watch, due 50 ms after the grant, finds the client closed
			await().atMost(Duration.ofSeconds(5)).until(() -> !blocking.isHeld());
			assertThat(manager.getRegistry().snapshot()).extracting(LockInfo::state).containsExactly(LockState.LOST);
			assertThat(reasons).containsExactly(LockLossReason.SESSION_LOST);
			blocking.close();
			assertThat(manager.getRegistry().snapshot()).isEmpty();
		});
	}

	@Test
	void aReleaseOnAClosedManagerIsCompleteWhenReleaseReturns() throws Exception {
		onAClientTheApplicationCloses((closing, manager) -> {
			AtomicInteger accepted = new AtomicInteger(Integer.MAX_VALUE);
			Executor controlled = (task) -> {
				if (accepted.getAndDecrement() <= 0) {
					throw new RejectedExecutionException("shut down");
				}
				this.runner.execute(task);
			};
			CountDownLatch fallbackBusy = new CountDownLatch(1);
			CountDownLatch unblock = new CountDownLatch(1);
			AsyncLockManager async = manager.async(controlled);
			async.setInstrumentations(List.of((request) -> new LockInstrumentation.Acquisition() {

				@Override
				public void failed(Throwable failure) {
					if (request.name().equals("blocker")) {
						// on the view's one fallback thread: what is handed to it next waits behind this
						fallbackBusy.countDown();
						awaitQuietly(unblock);
					}
				}

			}));
			AsyncLockHandle late = async.acquire(LockRequest.named("late").build()).get(10, TimeUnit.SECONDS);
			try (LockHandle held = otherManager().acquire(LockRequest.named("blocker").build())) {
				assertThat(held.isAcquired()).isTrue();
				// the start runs, the delivery of its timeout is refused and goes to the fallback
				accepted.set(1);
				async.acquire(LockRequest.named("blocker").timeout(Duration.ofMillis(100)).build());
				assertThat(fallbackBusy.await(10, TimeUnit.SECONDS)).as("fallback thread busy").isTrue();
				// as at SIGTERM: the hold given up by the drain, the manager and its client closed
				manager.drain(Duration.ZERO);
				manager.close();
				closing.close();
				CompletableFuture<Void> released = late.release();
				// the JVM's exit waits for the caller's thread, not for the fallback's
				assertThat(released).as("release of a hold on a closed manager, when release() returns").isDone();
				assertThat(released.get()).isNull();
				assertThat(manager.getRegistry().snapshot()).isEmpty();
				// only the other holder's node is left
				assertThat(ephemeralNodes()).singleElement().asString().contains("/blocker/");
			}
			finally {
				unblock.countDown();
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> ephemeralNodes().isEmpty());
		});
	}

	@Test
	void aHoldWhoseRevocationIsSeenAfterTheManagerClosedIsStillLost() throws Exception {
		CuratorLockManager closing = new CuratorLockManager(client, this.basePath, Duration.ofSeconds(30));
		try {
			Queue<LockLossReason> reasons = new ConcurrentLinkedQueue<>();
			closing.addLockLossListener((lock, reason) -> reasons.add(reason));
			LockHandle handle = closing.acquire(LockRequest.named("revoked-after-close").build());
			awaitWatched(closing);
			closing.close();
			List<String> nodes = ephemeralNodes();
			assertThat(nodes).hasSize(1);
			// another process revokes it: the client is open and its watch fires, after the manager closed
			client.delete().forPath(nodes.get(0));
			await("hold lost after its node was deleted").atMost(Duration.ofSeconds(5)).until(() -> !handle.isHeld());
			assertThat(reasons).containsExactly(LockLossReason.REVOKED);
			handle.close();
			assertThat(closing.getRegistry().snapshot()).isEmpty();
		}
		finally {
			closing.close();
		}
	}

	// Until the revocation watch of every hold of the manager is armed
	private static void awaitWatched(CuratorLockManager manager) {
		await("holds watched").atMost(Duration.ofSeconds(10))
			.until(() -> manager.getRegistry()
				.entries(EnumSet.of(LockState.HELD))
				.stream()
				.noneMatch(LockRegistry.Entry::wantsWatch));
	}

	// An application that closes its Curator client before its lock holders are done
	private void onAClientTheApplicationCloses(ClosingClientTest test) throws Exception {
		CuratorFramework closing = ZooKeeperTestSupport.startClient(server.getConnectString());
		CuratorLockManager manager = new CuratorLockManager(closing, this.basePath, Duration.ofSeconds(30));
		try {
			test.run(closing, manager);
		}
		finally {
			manager.close();
			closing.close();
		}
	}

	/**
	 * A test on a client it closes itself, and a manager on that client.
	 */
	@FunctionalInterface
	private interface ClosingClientTest {

		void run(CuratorFramework closing, CuratorLockManager manager) throws Exception;

	}

	private LockInstrumentation recording() {
		return (request) -> new LockInstrumentation.Acquisition() {

			@Override
			public void acquired(dev.zklock.LockContext lock) {
				EngineHazardTests.this.events.add("acquired");
			}

			@Override
			public void failed(Throwable failure) {
				EngineHazardTests.this.events.add("failed " + failure.getClass().getSimpleName());
			}

		};
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
