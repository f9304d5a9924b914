package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.DefaultTracerDriver;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;

import dev.zklock.LockDeadlock;
import dev.zklock.LockDeadlockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.LockRing.Crossing;
import dev.zklock.core.LockRing.Outcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Deadlocks ended (#42, step 6): in a cycle of nested waits, exactly one wait, the
 * newest, fails with a {@link LockDeadlockException} within {@code after} and a
 * second of the cycle forming; the others are granted once its caller's outer
 * locks go, and no node is left. Threads of one manager, instances on two
 * clients, three names, an asynchronous waiter; none with detection off.
 */
class DeadlockTests extends AbstractZooKeeperTests {

	private static final Duration AFTER = Duration.ofMillis(200);

	private static final Duration WAIT = Duration.ofSeconds(30);

	// far beyond detection: a wait that runs out means the cycle was not broken
	private static final Duration INNER_TIMEOUT = Duration.ofSeconds(8);

	private final List<LockDeadlock> resolved = new CopyOnWriteArrayList<>();

	@BeforeEach
	void detectAfterTheMark() {
		this.manager.setDeadlockDetection(settings(AFTER));
		this.manager.addLockDeadlockListener(this.resolved::add);
	}

	@Test
	void twoThreadsOfOneManagerInOppositeOrdersEndWithOneVictim() throws Exception {
		LockRing ring = new LockRing(List.of(this.manager, this.manager), List.of("x", "y"), Crossing.MUTEX,
				INNER_TIMEOUT);
		long formed = ring.awaitFormed();
		Outcome victim = oneVictimOthersGranted(ring.outcomes(), formed, AFTER);
		LockDeadlockException failure = (LockDeadlockException) victim.failure();
		assertThat(failure.getDeadlock().victim().thread()).isEqualTo(victim.thread());
		assertThat(failure.getMessage()).startsWith("Deadlock detected: this wait for lock ")
			.contains("thread 'holds-x' waits for 'y' key 'k' (MUTEX)")
			.contains("thread 'holds-y' holds 'y' key 'k' (MUTEX)")
			.contains("thread 'holds-y' waits for 'x' key 'k' (MUTEX)")
			.contains("thread 'holds-x' holds 'x' key 'k' (MUTEX)");
		assertThat(this.manager.getDeadlocks()).containsExactly(failure.getDeadlock());
		assertThat(this.asyncManager.getDeadlocks()).containsExactly(failure.getDeadlock());
		assertThat(this.resolved).containsExactly(failure.getDeadlock());
		assertThat(ephemeralNodes()).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(Crossing.class)
	void twoInstancesCrossingEndWithOneVictimOnOneInstance(Crossing crossing) throws Exception {
		try (CuratorFramework otherClient = ZooKeeperTestSupport.startClient(server.getConnectString());
				CuratorLockManager other = new CuratorLockManager(otherClient, this.basePath, WAIT)) {
			other.setDeadlockDetection(settings(AFTER));
			LockRing ring = new LockRing(List.of(this.manager, other), List.of("x", "y"), crossing, INNER_TIMEOUT);
			long formed = ring.awaitFormed();
			Outcome victim = oneVictimOthersGranted(ring.outcomes(), formed, AFTER);
			LockDeadlock deadlock = ((LockDeadlockException) victim.failure()).getDeadlock();
			// two instances of one JVM: the message tells them apart by session
			assertThat(victim.failure().getMessage())
				.contains("session 0x" + Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId()))
				.contains("session 0x" + Long.toHexString(otherClient.getZookeeperClient().getZooKeeper().getSessionId()));
			CuratorLockManager victimsManager = victim.thread().equals("holds-x") ? this.manager : other;
			CuratorLockManager othersManager = (victimsManager == other) ? this.manager : other;
			assertThat(victimsManager.getDeadlocks()).containsExactly(deadlock);
			assertThat(othersManager.getDeadlocks()).isEmpty();
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void aCycleOfThreeNamesEndsWithOneVictim() throws Exception {
		LockRing ring = new LockRing(List.of(this.manager, this.manager, otherManager()), List.of("a", "b", "c"),
				Crossing.MUTEX, INNER_TIMEOUT);
		otherManager().setDeadlockDetection(settings(AFTER));
		long formed = ring.awaitFormed();
		Outcome victim = oneVictimOthersGranted(ring.outcomes(), formed, AFTER);
		assertThat(((LockDeadlockException) victim.failure()).getDeadlock().edges()).hasSize(3);
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void twoThreadsWithLocalHandoffInOppositeOrdersAreFoundThroughTheirTenures() throws Exception {
		LockRing ring = new LockRing(List.of(this.manager, this.manager), List.of("x", "y"), Crossing.LOCAL_HANDOFF,
				INNER_TIMEOUT);
		long formed = ring.awaitFormed();
		oneVictimOthersGranted(ring.outcomes(), formed, AFTER);
		assertThat(this.resolved).hasSize(1);
		assertThat(ephemeralNodes()).isEmpty();
	}

	// A hot key, with local hand-off or without: more waiters past the mark than a round reads records, none holding
	// anything. They publish nothing (without hand-off, each has a node of its own: #42 made the rule general), so
	// the search stays on, and a cycle through the hot key, with a waiter behind them that holds another lock, is
	// still found and broken
	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void manyWaitersOfAHotKeyThatHoldNothingKeepTheSearchOnAndACycleThroughItIsFound(boolean localHandoff)
			throws Exception {
		int waiters = CycleSearch.MAX_RECORDS + 44;
		LockRequest hot = LockRequest.named("hot").keys("k").localHandoff(localHandoff).timeout(WAIT).build();
		LockRequest x = LockRequest.named("x").keys("k").timeout(WAIT).build();
		CountDownLatch bothHold = new CountDownLatch(2);
		List<CompletableFuture<Outcome>> ring = new ArrayList<>();
		List<CompletableFuture<Outcome>> bare = new ArrayList<>();
		int bareRecords;
		try (MarkCounter marks = new MarkCounter()) {
			ring.add(nested("holds-hot", hot, LockRequest.named("x").keys("k").timeout(INNER_TIMEOUT).build(),
					bothHold, null));
			await().atMost(WAIT).until(() -> this.manager.getRegistry().heldCount() == 1);
			for (int i = 0; i < waiters; i++) {
				String thread = "bare-" + i;
				bare.add(LockRing.inThread(thread, () -> LockRing.inner(this.manager, thread, hot)));
			}
			await().atMost(WAIT).until(() -> marks.count() >= waiters);
			bareRecords = records();
		}
		// timed from before the cycle forms: holds-x takes x, then both ask
		long formed = System.nanoTime();
		ring.add(nested("holds-x", x, LockRequest.named("hot").keys("k").localHandoff(localHandoff)
			.timeout(INNER_TIMEOUT)
			.build(), bothHold, null));
		await().atMost(WAIT).until(() -> !this.resolved.isEmpty() || ring.stream().anyMatch(CompletableFuture::isDone));
		int cycleRecords = records();
		List<Outcome> outcomes = new ArrayList<>();
		for (CompletableFuture<Outcome> outcome : ring) {
			outcomes.add(outcome.get(30, TimeUnit.SECONDS));
		}
		oneVictimOthersGranted(outcomes, formed, AFTER);
		for (CompletableFuture<Outcome> outcome : bare) {
			assertThat(outcome.get(30, TimeUnit.SECONDS).acquired()).isTrue();
		}
		assertThat(bareRecords).as("records of waiters that hold nothing").isZero();
		assertThat(cycleRecords).as("records as the cycle was broken").isLessThanOrEqualTo(2);
		assertThat(this.resolved).hasSize(1);
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
	}

	// A waiter with a queue node of its own that holds nothing, past the mark: no record reaches ZooKeeper, and no
	// request goes to the records' path, in every mode; it is still waiting. Before #42's general rule, only local
	// hand-off waiters kept quiet, and this waiter published one record
	@ParameterizedTest
	@EnumSource(LockMode.class)
	void aWaiterThatHoldsNothingPublishesNothingPastTheMark(LockMode mode) throws Exception {
		LockRequest held = LockRequest.named("stock").keys("7")
			.mode((mode == LockMode.READ) ? LockMode.WRITE : mode)
			.permits(1)
			.timeout(WAIT)
			.build();
		RoundTripTests.Operations onWaits = new RoundTripTests.Operations();
		client.getZookeeperClient().setTracerDriver(onWaits);
		onWaits.start(this.basePath + "/" + LockPaths.WAITS);
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), held);
				MarkCounter marks = new MarkCounter()) {
			CompletableFuture<Outcome> bare = LockRing.inThread("bare", () -> LockRing.inner(this.manager, "bare",
					LockRequest.named("stock").keys("7").mode(mode).permits(1).timeout(WAIT).build()));
			await().atMost(WAIT).until(() -> marks.count() == 1);
			// the publish would have been sent with the mark; a round trip and more later, still nothing
			await().during(AFTER).atMost(WAIT).until(() -> recordsOnTheServer() == 0);
			assertThat(onWaits.seen()).as("operations on published waits").isEmpty();
			assertThat(bare).isNotDone();
			holder.close();
			assertThat(bare.get(30, TimeUnit.SECONDS).acquired()).isTrue();
		}
		finally {
			client.getZookeeperClient().setTracerDriver(new DefaultTracerDriver());
		}
		assertThat(onWaits.stop()).as("operations on published waits").isEmpty();
		assertThat(ephemeralNodes()).isEmpty();
	}

	// A reader that holds orders:1 queues behind a writer that holds nothing, itself behind the reader that holds
	// stock:7 and waits for orders:1. The writer publishes no record: the graph has the first reader wait, through
	// the writer's node, for the READ holder ahead of it, so the cycle is found and broken; the writer is granted last
	@Test
	void aReaderBehindAWriterThatHoldsNothingIsInTheCycleThroughIt() throws Exception {
		LockRequest stockRead = LockRequest.named("stock").keys("7").mode(LockMode.READ).timeout(WAIT).build();
		LockRequest orders = LockRequest.named("orders").keys("1").timeout(WAIT).build();
		CountDownLatch bothHold = new CountDownLatch(2);
		CountDownLatch writerQueued = new CountDownLatch(1);
		List<CompletableFuture<Outcome>> ring = new ArrayList<>();
		ring.add(crossing("reads-stock", stockRead, orders, bothHold, writerQueued));
		ring.add(crossing("holds-orders", orders, stockRead, bothHold, writerQueued));
		assertThat(bothHold.await(30, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Outcome> writer = LockRing.inThread("writer", () -> LockRing.inner(otherManager(), "writer",
				LockRequest.named("stock").keys("7").mode(LockMode.WRITE).timeout(WAIT).build()));
		String stock = this.manager.pathFor("stock", "7");
		await().atMost(WAIT).until(() -> client.getChildren().forPath(stock).size() == 2);
		long formed = System.nanoTime();
		writerQueued.countDown();
		List<Outcome> outcomes = new ArrayList<>();
		for (CompletableFuture<Outcome> outcome : ring) {
			outcomes.add(outcome.get(30, TimeUnit.SECONDS));
		}
		oneVictimOthersGranted(outcomes, formed, AFTER);
		assertThat(writer.get(30, TimeUnit.SECONDS).acquired()).isTrue();
		assertThat(this.resolved).singleElement()
			.satisfies((deadlock) -> assertThat(deadlock.edges()).hasSize(2));
		assertThat(ephemeralNodes()).isEmpty();
	}

	// Holds the outer lock, then, once told, asks for the inner one with the inner timeout
	private CompletableFuture<Outcome> crossing(String thread, LockRequest outer, LockRequest inner,
			CountDownLatch allHold, CountDownLatch ask) {
		return LockRing.inThread(thread, () -> {
			try (LockHandle held = this.manager.acquire(outer)) {
				allHold.countDown();
				ask.await();
				return LockRing.inner(this.manager, thread, LockRequest.named(inner.name())
					.keys(inner.keys())
					.mode(inner.mode())
					.timeout(INNER_TIMEOUT)
					.build());
			}
		});
	}

	// As records(), read on a client of its own: the test's reads are not counted as the detector's
	private int recordsOnTheServer() throws Exception {
		try (CuratorFramework reader = ZooKeeperTestSupport.startClient(server.getConnectString())) {
			String waits = this.basePath + "/" + LockPaths.WAITS;
			return (reader.checkExists().forPath(waits) != null) ? reader.getChildren().forPath(waits).size() : 0;
		}
	}

	// How many waits are published under <base-path>/#waits
	private int records() throws Exception {
		String waits = this.basePath + "/" + LockPaths.WAITS;
		return (client.checkExists().forPath(waits) != null) ? client.getChildren().forPath(waits).size() : 0;
	}

	@Test
	void aSemaphoreWhosePermitHoldersAllWaitInTheCycleIsADeadlock() throws Exception {
		List<CompletableFuture<Outcome>> outcomes = semaphoreCycle(true);
		List<Outcome> ended = new ArrayList<>();
		for (CompletableFuture<Outcome> outcome : outcomes) {
			ended.add(outcome.get(30, TimeUnit.SECONDS));
		}
		assertThat(ended).filteredOn((outcome) -> outcome.failure() != null).singleElement()
			.satisfies((victim) -> assertThat(victim.failure()).isInstanceOf(LockDeadlockException.class));
		assertThat(ended).filteredOn((outcome) -> outcome.failure() == null)
			.hasSize(2)
			.allSatisfy((outcome) -> assertThat(outcome.acquired()).isTrue());
		assertThat(this.resolved).hasSize(1);
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void aSemaphoreWithAPermitHolderOutsideTheCycleIsNoDeadlock() throws Exception {
		List<CompletableFuture<Outcome>> outcomes = semaphoreCycle(false);
		for (CompletableFuture<Outcome> outcome : outcomes) {
			assertThat(outcome.get(30, TimeUnit.SECONDS).failure()).isNull();
		}
		assertThat(this.resolved).isEmpty();
		assertThat(ephemeralNodes()).isEmpty();
	}

	// Two threads take a permit of SEMAPHORE(2) "s", one MUTEX "m"; then the holder of "m" asks for "s" (for 2 s)
	// and the permit holders ask for "m", or only one of them does while the other holds on
	private List<CompletableFuture<Outcome>> semaphoreCycle(boolean bothPermitHoldersWait) throws Exception {
		LockRequest permit = LockRequest.named("s").keys("k").mode(LockMode.SEMAPHORE)
			.permits(2)
			.timeout(WAIT)
			.build();
		LockRequest mutex = LockRequest.named("m").keys("k").timeout(INNER_TIMEOUT).build();
		CountDownLatch allHold = new CountDownLatch(3);
		CountDownLatch released = new CountDownLatch(1);
		List<CompletableFuture<Outcome>> outcomes = new ArrayList<>();
		outcomes.add(nested("permit-1", permit, mutex, allHold, null));
		outcomes.add(nested("permit-2", permit, bothPermitHoldersWait ? mutex : null, allHold, released));
		outcomes.add(nested("holds-m", mutex, LockRequest.named("s").keys("k")
			.mode(LockMode.SEMAPHORE)
			.permits(2)
			.timeout(Duration.ofSeconds(2))
			.build(), allHold, null));
		// the permit holder outside the cycle leaves once the holder of "m" stopped waiting for "s"
		outcomes.get(2).whenComplete((outcome, ex) -> released.countDown());
		return outcomes;
	}

	private CompletableFuture<Outcome> nested(String thread, LockRequest outer, @Nullable LockRequest inner,
			CountDownLatch allHold, @Nullable CountDownLatch leave) {
		return LockRing.inThread(thread, () -> {
			try (LockHandle held = this.manager.acquire(outer)) {
				allHold.countDown();
				allHold.await();
				if (inner == null) {
					Objects.requireNonNull(leave, "a holder that asks for nothing waits to leave").await();
					return new Outcome(thread, held.isAcquired(), null, System.nanoTime());
				}
				return LockRing.inner(this.manager, thread, inner);
			}
		});
	}

	@Test
	void withDetectionOffTheCycleEndsByTimeoutAndNothingIsPublished() throws Exception {
		this.manager.setDeadlockDetection(new DeadlockDetectionSettings(false, AFTER, 10, null));
		RoundTripTests.Operations onWaits = new RoundTripTests.Operations();
		client.getZookeeperClient().setTracerDriver(onWaits);
		onWaits.start(this.basePath + "/" + LockPaths.WAITS);
		try {
			LockRing ring = new LockRing(List.of(this.manager, this.manager), List.of("x", "y"), Crossing.MUTEX,
					Duration.ofMillis(1500));
			ring.awaitFormed();
			List<Outcome> outcomes = ring.outcomes();
			assertThat(outcomes).allSatisfy((outcome) -> assertThat(outcome.failure()).isNull());
			// the first to time out lets the other in
			assertThat(outcomes).anySatisfy((outcome) -> assertThat(outcome.acquired()).isFalse());
		}
		finally {
			client.getZookeeperClient().setTracerDriver(new DefaultTracerDriver());
		}
		assertThat(onWaits.stop()).as("operations on published waits").isEmpty();
		assertThat(this.resolved).isEmpty();
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void anAsynchronousWaiterThatTookAKeyIsTheVictimWhenNewest() throws Exception {
		// the asynchronous wait is published last: it is the newest, so the victim. Its mark is timed from its start,
		// the blocking wait's from after the setup, so the async's `after` must outlast the setup: with 1 s, a setup of
		// 0.8 s on a loaded machine made the blocking wait the newest, and rightly its victim
		Duration asyncAfter = Duration.ofSeconds(4);
		this.manager.setDeadlockDetection(settings(asyncAfter));
		otherManager().setDeadlockDetection(settings(AFTER));
		CountDownLatch asyncTookA = new CountDownLatch(1);
		CountDownLatch holdsB = new CountDownLatch(1);
		CompletableFuture<Boolean> blocking = new CompletableFuture<>();
		new Thread(() -> {
			try (LockHandle b = otherManager().acquire(LockRequest.named("m").keys("b").timeout(WAIT).build())) {
				holdsB.countDown();
				asyncTookA.await();
				try (LockHandle a = otherManager().acquire(LockRequest.named("m").keys("a")
					.timeout(INNER_TIMEOUT)
					.build())) {
					blocking.complete(a.isAcquired());
				}
			}
			catch (Throwable ex) {
				blocking.completeExceptionally(ex);
			}
		}, "holds-b").start();
		assertThat(holdsB.await(30, TimeUnit.SECONDS)).isTrue();
		long started = System.nanoTime();
		CompletableFuture<AsyncLockHandle> both = this.asyncManager
			.acquire(LockRequest.named("m").keys("a", "b").timeout(INNER_TIMEOUT).build());
		String pathA = this.manager.pathFor("m", "a");
		await().atMost(WAIT).until(() -> client.checkExists().forPath(pathA) != null
				&& client.getChildren().forPath(pathA).size() == 1);
		asyncTookA.countDown();
		// the blocking wait is published before the async's mark, or the setup outlasted it
		await().atMost(WAIT).until(() -> records() == 1);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("setup and the blocking wait's publishing")
			.isLessThan(asyncAfter);
		Throwable failure = LockEngine.unwrap(both.handle((handle, ex) -> ex).get(30, TimeUnit.SECONDS));
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThanOrEqualTo(asyncAfter.plusSeconds(1));
		assertThat(failure).isInstanceOf(LockDeadlockException.class);
		LockDeadlock deadlock = ((LockDeadlockException) failure).getDeadlock();
		assertThat(deadlock.victim().thread()).isEqualTo("async");
		assertThat(blocking.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(this.resolved).containsExactly(deadlock);
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
	}

	// Exactly one wait failed, with a deadlock, within after and a second; every other was granted
	private static Outcome oneVictimOthersGranted(List<Outcome> outcomes, long formed, Duration after) {
		List<Outcome> victims = outcomes.stream().filter((outcome) -> outcome.failure() != null).toList();
		assertThat(victims).singleElement()
			.satisfies((victim) -> assertThat(victim.failure()).isInstanceOf(LockDeadlockException.class));
		assertThat(outcomes).filteredOn((outcome) -> outcome.failure() == null)
			.hasSize(outcomes.size() - 1)
			.allSatisfy((outcome) -> assertThat(outcome.acquired()).isTrue());
		Outcome victim = victims.get(0);
		assertThat(Duration.ofNanos(victim.endedAt() - formed)).isLessThanOrEqualTo(after.plusSeconds(1));
		return victim;
	}

	private static DeadlockDetectionSettings settings(Duration after) {
		return new DeadlockDetectionSettings(true, after, 10, "orders");
	}

	/**
	 * Counts the waits marked past {@code after}, from the detector's DEBUG log, as
	 * DeadlockMarkTests does: nothing public counts them.
	 */
	private static final class MarkCounter extends AppenderBase<ILoggingEvent> implements AutoCloseable {

		private final Logger detectorLog = (Logger) LoggerFactory.getLogger(DeadlockDetector.class);

		private final Level levelBefore = this.detectorLog.getLevel();

		private final AtomicInteger marks = new AtomicInteger();

		MarkCounter() {
			start();
			this.detectorLog.setLevel(Level.DEBUG);
			this.detectorLog.addAppender(this);
		}

		@Override
		protected void append(ILoggingEvent event) {
			if (event.getFormattedMessage().contains("waited past the deadlock detection mark")) {
				this.marks.incrementAndGet();
			}
		}

		int count() {
			return this.marks.get();
		}

		@Override
		public void close() {
			this.detectorLog.detachAppender(this);
			this.detectorLog.setLevel(this.levelBefore);
			stop();
		}

	}

}
