package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.zklock.LockHandle;
import dev.zklock.LockInfo;
import dev.zklock.LockLossReason;
import dev.zklock.LockManager;
import dev.zklock.LockRequest;
import dev.zklock.LockState;
import dev.zklock.annotation.LockMode;
import dev.zklock.metrics.LockMetrics;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A hold released before its {@code minHold} stays held, against a real ZooKeeper
 * server: the release returns at once, the node stays until the shortest hold has
 * passed since the grant, and only then does another instance get the lock. The
 * kept hold shows as held with its method finished, counts in the hold meters, is
 * neither awaited nor given up by the shutdown drain, and ends quietly with its
 * session. Each timing test has its control without minHold.
 */
@ExtendWith(OutputCaptureExtension.class)
class MinHoldTests extends AbstractZooKeeperTests {

	private static final Duration MIN_HOLD = Duration.ofMillis(600);

	private static final Duration WAIT = Duration.ofSeconds(20);

	private CuratorLockManager other;

	private final List<LockLossReason> losses = new CopyOnWriteArrayList<>();

	@BeforeEach
	void createOtherInstance() {
		this.other = new CuratorLockManager(client, this.basePath, Duration.ofSeconds(30));
		this.manager.addLockLossListener((lock, reason) -> this.losses.add(reason));
	}

	@AfterEach
	void closeOtherInstance() {
		this.other.close();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void theNextInstanceGetsTheLockOnlyWhenMinHoldHasPassedSinceTheGrant(LockMode mode) throws Exception {
		long granted = System.nanoTime();
		LockHandle handle = this.manager.acquire(request(mode).minHold(MIN_HOLD).build());
		long token = handle.fencingToken();
		long closeStart = System.nanoTime();
		handle.close();
		long closeNanos = System.nanoTime() - closeStart;
		assertThat(Duration.ofNanos(closeNanos)).as("the release returns at once").isLessThan(Duration.ofMillis(100));
		assertThat(handle.isAcquired()).isFalse();
		assertThat(ephemeralNodes()).as("the node stays").hasSize(1);
		LockInfo kept = this.manager.getRegistry().snapshot().get(0);
		assertThat(kept.state()).isEqualTo(LockState.HELD);
		assertThat(kept.methodFinished()).isTrue();
		// a WRITE waits behind a kept READ
		LockMode next = (mode == LockMode.READ) ? LockMode.WRITE : mode;
		AsyncLockHandle taken = this.other.async(null).acquire(request(next).build()).get(20, TimeUnit.SECONDS);
		long takenAfter = System.nanoTime() - granted;
		assertThat(taken.fencingToken()).isGreaterThan(token);
		assertThat(Duration.ofNanos(takenAfter)).as("not before minHold").isGreaterThanOrEqualTo(MIN_HOLD);
		assertThat(Duration.ofNanos(takenAfter)).as("soon after minHold").isLessThan(MIN_HOLD.plusSeconds(2));
		taken.release().get(20, TimeUnit.SECONDS);
		await().atMost(WAIT).until(() -> this.manager.getRegistry().snapshot().isEmpty());
		assertThat(ephemeralNodes()).isEmpty();
		assertThat(this.losses).isEmpty();
		System.out.printf("MIN HOLD %s: minHold %d ms, close returned in %.2f ms, the next instance held the lock "
				+ "%.1f ms after the holder's acquire call began%n", mode, MIN_HOLD.toMillis(), closeNanos / 1e6,
				takenAfter / 1e6);
	}

	@Test
	void withoutMinHoldTheNextInstanceGetsTheLockRightAfterTheRelease() throws Exception {
		long granted = System.nanoTime();
		this.manager.acquire(request(LockMode.MUTEX).build()).close();
		AsyncLockHandle taken = this.other.async(null)
			.acquire(request(LockMode.MUTEX).build())
			.get(20, TimeUnit.SECONDS);
		long takenAfter = System.nanoTime() - granted;
		assertThat(Duration.ofNanos(takenAfter)).as("control: the release frees the lock").isLessThan(MIN_HOLD);
		taken.release().get(20, TimeUnit.SECONDS);
	}

	@Test
	void aTryOnceDuringTheKeptHoldFindsTheLockTakenAndOneAfterItGetsIt() throws Exception {
		this.manager.acquire(request(LockMode.MUTEX).minHold(MIN_HOLD).build()).close();
		LockRequest tryOnce = request(LockMode.MUTEX).timeout(Duration.ZERO).build();
		try (LockHandle during = this.other.acquire(tryOnce)) {
			assertThat(during.isAcquired()).isFalse();
		}
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
		try (LockHandle after = this.other.acquire(tryOnce)) {
			assertThat(after.isAcquired()).isTrue();
		}
	}

	@Test
	void aHoldLongerThanMinHoldIsReleasedAtOnce() throws Exception {
		try (LockHandle handle = this.manager.acquire(request(LockMode.MUTEX).minHold(Duration.ofMillis(50)).build())) {
			await().pollDelay(Duration.ofMillis(100)).atMost(WAIT).until(handle::isHeld);
		}
		assertThat(ephemeralNodes()).isEmpty();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
	}

	@Test
	void anAsynchronousMultiKeyHoldKeepsEveryKey() throws Exception {
		LockRequest request = LockRequest.named("x").keys("a", "b", "c").minHold(MIN_HOLD).build();
		AsyncLockHandle handle = this.asyncManager.acquire(request).get(20, TimeUnit.SECONDS);
		long granted = System.nanoTime();
		handle.release().get(1, TimeUnit.SECONDS);
		assertThat(ephemeralNodes()).hasSize(3);
		assertThat(this.manager.getRegistry().snapshot()).hasSize(3)
			.allSatisfy((lock) -> assertThat(lock.methodFinished()).isTrue());
		AsyncLockHandle taken = this.other.async(null)
			.acquire(LockRequest.named("x").keys("c").build())
			.get(20, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - granted)).isGreaterThanOrEqualTo(MIN_HOLD.minusMillis(50));
		taken.release().get(20, TimeUnit.SECONDS);
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
	}

	@Test
	void onlyTheOutermostReleaseOfAReentrantHoldIsKept() throws Exception {
		try (LockHandle outer = this.manager.acquire(request(LockMode.MUTEX).minHold(MIN_HOLD).build())) {
			this.manager.acquire(request(LockMode.MUTEX).build()).close();
			assertThat(outer.isHeld()).isTrue();
			assertThat(this.manager.getRegistry().snapshot()).singleElement()
				.satisfies((lock) -> assertThat(lock.methodFinished()).isFalse());
		}
		assertThat(this.manager.getRegistry().snapshot()).singleElement()
			.satisfies((lock) -> assertThat(lock.methodFinished()).isTrue());
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
	}

	@Test
	void theHoldMetersCountTheKeptHoldUntilItsNodeIsDeleted() throws Exception {
		MeterRegistry meters = new SimpleMeterRegistry();
		LockManager instrumented = new InstrumentedLockManager(this.manager, List.of(new LockMetrics(meters)));
		instrumented.acquire(request(LockMode.MUTEX).minHold(MIN_HOLD).build()).close();
		assertThat(meters.get(LockMetrics.ACTIVE).tag("name", "x").gauge().value()).isOne();
		assertThat(meters.find(LockMetrics.HELD).timer()).isNull();
		await().atMost(WAIT).until(() -> meters.get(LockMetrics.ACTIVE).tag("name", "x").gauge().value() == 0);
		double heldMillis = meters.get(LockMetrics.HELD).timer().totalTime(TimeUnit.MILLISECONDS);
		assertThat(heldMillis).isGreaterThanOrEqualTo(MIN_HOLD.toMillis() - 50);
		// control: without minHold the hold ends with the close
		instrumented.acquire(request(LockMode.MUTEX).build()).close();
		assertThat(meters.get(LockMetrics.ACTIVE).tag("name", "x").gauge().value()).isZero();
	}

	@Test
	void theShutdownDrainNeitherWaitsForNorGivesUpAKeptHold(CapturedOutput output) throws Exception {
		Duration minHold = Duration.ofSeconds(3);
		this.manager.acquire(request(LockMode.MUTEX).minHold(minHold).build()).close();
		long start = System.nanoTime();
		int givenUp = this.manager.drain(Duration.ofSeconds(10));
		Duration drained = Duration.ofNanos(System.nanoTime() - start);
		assertThat(givenUp).isZero();
		assertThat(drained).as("the drain does not wait for it").isLessThan(Duration.ofSeconds(1));
		assertThat(this.losses).as("not announced as lost").isEmpty();
		assertThat(ephemeralNodes()).as("kept").hasSize(1);
		assertThat(output).contains("1 lock(s) whose work has finished stay held for their minHold");
		// control: a hold whose work is still running is given up
		LockHandle running = this.other.acquire(request(LockMode.MUTEX).keys("running").build());
		assertThat(this.other.drain(Duration.ofMillis(100))).isOne();
		running.close();
		// the manager closes while its client stays open (a shared client): the kept hold still ends on time
		this.manager.close();
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(minHold.plusSeconds(5));
	}

	@Test
	void aKeptHoldLostWithItsSessionJustEnds() throws Exception {
		CuratorFramework own = ZooKeeperTestSupport.startClient(server.getConnectString());
		try (CuratorLockManager manager = new CuratorLockManager(own, this.basePath, Duration.ofSeconds(30))) {
			List<LockLossReason> lost = new CopyOnWriteArrayList<>();
			manager.addLockLossListener((lock, reason) -> lost.add(reason));
			manager.acquire(request(LockMode.MUTEX).minHold(Duration.ofMinutes(5)).build()).close();
			assertThat(manager.getRegistry().snapshot()).singleElement()
				.satisfies((lock) -> assertThat(lock.methodFinished()).isTrue());
			ZooKeeperSessions.expire(own);
			await().atMost(WAIT).until(() -> manager.getRegistry().snapshot().isEmpty());
			assertThat(lost).isEmpty();
			assertThat(ephemeralNodes()).isEmpty();
			// control: a hold whose work runs is announced as lost
			LockHandle running = manager.acquire(request(LockMode.MUTEX).minHold(Duration.ofMinutes(5)).build());
			ZooKeeperSessions.expire(own);
			await().atMost(WAIT).until(() -> !lost.isEmpty());
			// the expiry attaches a second connection to the session, which closes the client's, then closes the
			// session; a client that reconnects in between hears its node deleted before it hears the session end
			assertThat(lost).singleElement().isIn(LockLossReason.SESSION_LOST, LockLossReason.NODE_DELETED);
			running.close();
		}
		finally {
			own.close();
		}
	}

	@Test
	void aCapAsLongAsMinHoldDoesNotTakeTheKeptHoldAway() throws Exception {
		Duration bound = Duration.ofMillis(300);
		this.manager.acquire(request(LockMode.MUTEX).minHold(bound).maxHold(bound).build()).close();
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
		await().atMost(WAIT).until(() -> this.manager.getRegistry().snapshot().isEmpty());
		assertThat(this.losses).isEmpty();
	}

	@Test
	void aMinHoldLongerThanTheDefaultCapIsRefusedBeforeAnythingIsCreated() throws Exception {
		this.manager.setDefaultMaxHold(Duration.ofSeconds(1));
		LockRequest request = request(LockMode.MUTEX).minHold(Duration.ofSeconds(2)).build();
		assertThatIllegalArgumentException().isThrownBy(() -> this.manager.acquire(request))
			.withMessage("Lock 'x' minHold PT2S is longer than zk-lock.max-hold PT1S, which caps it: the lock would "
					+ "be taken away before it may be released; lower minHold, or give the request a maxHold of its "
					+ "own");
		assertThatExceptionOfType(Exception.class).isThrownBy(() -> this.asyncManager.acquire(request).get())
			.withRootCauseInstanceOf(IllegalArgumentException.class);
		assertThat(ZooKeeperTestSupport.tree(client, this.basePath)).isEmpty();
		// a request with a cap of its own may keep the lock longer than the default cap
		this.manager.acquire(request(LockMode.MUTEX).minHold(Duration.ofMillis(1500)).maxHold(Duration.ofSeconds(3))
			.build()).close();
		assertThat(ephemeralNodes()).hasSize(1);
		await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
		assertThat(this.losses).isEmpty();
	}

	private static LockRequest.Builder request(LockMode mode) {
		return LockRequest.named("x").keys("k").mode(mode).permits(1);
	}

}
