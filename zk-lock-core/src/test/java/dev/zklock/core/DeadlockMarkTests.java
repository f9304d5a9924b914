package dev.zklock.core;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.utils.DefaultTracerDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The deadlock detection mark: a wait that lasts past {@code after} is marked once
 * per key it waits for, blocking or asynchronous, and goes on exactly as before,
 * timed or endless; an uncontended cycle and a shorter wait are never marked, and
 * send nothing to the published waits' path. The {@link DeadlockDetector} logs
 * each mark it publishes, which is how these tests count them
 * ({@link DeadlockPublishingTests} follows the records).
 */
class DeadlockMarkTests extends AbstractZooKeeperTests {

	private static final Duration AFTER = Duration.ofMillis(200);

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final ListAppender<ILoggingEvent> marks = new ListAppender<>();

	private final Logger detectorLog = (Logger) LoggerFactory.getLogger(DeadlockDetector.class);

	// every operation on a published wait's path
	private final RoundTripTests.Operations onWaits = new RoundTripTests.Operations();

	private Level levelBefore;

	@BeforeEach
	void countMarks() {
		this.manager.setDeadlockDetection(new DeadlockDetectionSettings(true, AFTER, 10, "orders"));
		this.marks.start();
		this.levelBefore = this.detectorLog.getLevel();
		this.detectorLog.setLevel(Level.DEBUG);
		this.detectorLog.addAppender(this.marks);
		client.getZookeeperClient().setTracerDriver(this.onWaits);
		this.onWaits.start(this.basePath + "/" + LockPaths.WAITS);
	}

	@AfterEach
	void stopCounting() {
		client.getZookeeperClient().setTracerDriver(new DefaultTracerDriver());
		this.detectorLog.detachAppender(this.marks);
		this.detectorLog.setLevel(this.levelBefore);
		this.onWaits.stop();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void anUncontendedCycleIsNeverMarkedAndCostsThreeOperations(LockMode mode) {
		LockRequest request = LockRequest.named("trip").keys("k").mode(mode).permits(2).build();
		// the first round creates the parents, in a JVM that may still be cold: only the second one is measured
		acquireAndRelease(request);
		this.marks.list.clear();
		RoundTripTests.Operations operations = new RoundTripTests.Operations();
		client.getZookeeperClient().setTracerDriver(operations);
		operations.start(this.basePath);
		acquireAndRelease(request);
		assertThat(operations.stop()).hasSize(3);
		assertThat(this.marks.list).isEmpty();
		assertThat(this.onWaits.seen()).as("operations on published waits").isEmpty();
	}

	@Test
	void aWaitShorterThanTheMarkIsNeverMarked() throws Exception {
		// far beyond the wait, however slow the machine
		this.manager.setDeadlockDetection(new DeadlockDetectionSettings(true, Duration.ofSeconds(5), 10, null));
		LockRequest request = request("short").timeout(WAIT).build();
		CompletableFuture<Boolean> waiter;
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), request)) {
			waiter = CompletableFuture.supplyAsync(() -> acquireAndRelease(request));
			await().atMost(WAIT).until(() -> this.manager.getRegistry().waitingCount() == 1);
		}
		assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(this.marks.list).isEmpty();
		assertThat(this.onWaits.seen()).as("operations on published waits").isEmpty();
	}

	@Test
	void aTimedBlockingWaitIsMarkedOnceAndStillEndsAtItsDeadline() throws Exception {
		Duration timeout = Duration.ofMillis(900);
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), request("timed").timeout(WAIT).build())) {
			long start = System.nanoTime();
			try (LockHandle handle = this.manager.acquire(request("timed").timeout(timeout).build())) {
				assertThat(handle.isAcquired()).isFalse();
			}
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(timeout);
		}
		assertThat(markMessages()).singleElement()
			.satisfies((message) -> assertThat(message).contains("Lock 'timed' key 'k' (MUTEX)"));
	}

	@Test
	void anEndlessBlockingWaitStaysEndlessPastTheMark() throws Exception {
		LockRequest endless = request("endless").timeout(ChronoUnit.FOREVER.getDuration()).build();
		CompletableFuture<Boolean> waiter;
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), request("endless").build())) {
			waiter = CompletableFuture.supplyAsync(() -> acquireAndRelease(endless));
			await().atMost(WAIT).until(() -> this.marks.list.size() == 1);
			assertThat(this.manager.getRegistry().waitingCount()).as("still waiting after the mark").isEqualTo(1);
			assertThat(waiter).isNotDone();
		}
		assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(this.marks.list).hasSize(1);
	}

	@Test
	void anEndlessAsynchronousWaitIsMarkedByTheTimerAndGrantedLater() throws Exception {
		CompletableFuture<AsyncLockHandle> waiting;
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), request("async").build())) {
			waiting = this.asyncManager.acquire(request("async").timeout(ChronoUnit.FOREVER.getDuration()).build());
			await().atMost(WAIT).until(() -> this.marks.list.size() == 1);
			assertThat(waiting).isNotDone();
		}
		AsyncLockHandle handle = waiting.get(30, TimeUnit.SECONDS);
		assertThat(handle.isAcquired()).isTrue();
		handle.release().get(30, TimeUnit.SECONDS);
		assertThat(markMessages()).singleElement()
			.satisfies((message) -> assertThat(message).contains("Lock 'async' key 'k' (MUTEX)"));
	}

	@Test
	void aTimedAsynchronousWaitIsMarkedAndTimesOutAtItsDeadline() throws Exception {
		Duration timeout = Duration.ofMillis(900);
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), request("async").build())) {
			long start = System.nanoTime();
			AsyncLockHandle handle = this.asyncManager.acquire(request("async").timeout(timeout).build())
				.get(30, TimeUnit.SECONDS);
			assertThat(handle.isAcquired()).isFalse();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(timeout);
		}
		assertThat(this.marks.list).hasSize(1);
	}

	@Test
	void pastTheMarkEachLaterKeyIsMarkedAsItIsAwaited() throws Exception {
		LockRequest both = LockRequest.named("multi").keys("a", "b").timeout(WAIT).build();
		CompletableFuture<Boolean> waiter;
		BackgroundHolder second = BackgroundHolder.hold(otherManager(), LockRequest.named("multi").keys("b").build());
		try {
			try (BackgroundHolder first = BackgroundHolder.hold(otherManager(),
					LockRequest.named("multi").keys("a").build())) {
				waiter = CompletableFuture.supplyAsync(() -> acquireAndRelease(both));
				await().atMost(WAIT).until(() -> this.marks.list.size() == 1);
			}
			await().atMost(WAIT).until(() -> this.marks.list.size() == 2);
			assertThat(waiter).isNotDone();
		}
		finally {
			second.close();
		}
		assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(markMessages()).hasSize(2)
			.satisfiesExactly((message) -> assertThat(message).contains("Lock 'multi' key 'a' (MUTEX)"),
					(message) -> assertThat(message).contains("Lock 'multi' key 'b' (MUTEX)"));
	}

	@Test
	void noWaitIsMarkedWhileDetectionIsOff() throws Exception {
		this.manager.setDeadlockDetection(new DeadlockDetectionSettings(false, AFTER, 10, null));
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), request("off").build())) {
			try (LockHandle handle = this.manager.acquire(request("off").timeout(Duration.ofMillis(600)).build())) {
				assertThat(handle.isAcquired()).isFalse();
			}
			AsyncLockHandle handle = this.asyncManager.acquire(request("off").timeout(Duration.ofMillis(600)).build())
				.get(30, TimeUnit.SECONDS);
			assertThat(handle.isAcquired()).isFalse();
		}
		assertThat(this.marks.list).isEmpty();
		assertThat(this.onWaits.seen()).as("operations on published waits").isEmpty();
	}

	private boolean acquireAndRelease(LockRequest request) {
		try (LockHandle handle = this.manager.acquire(request)) {
			return handle.isAcquired();
		}
	}

	private List<String> markMessages() {
		return this.marks.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
	}

	private static LockRequest.Builder request(String name) {
		return LockRequest.named(name).keys("k").timeout(WAIT);
	}

}
