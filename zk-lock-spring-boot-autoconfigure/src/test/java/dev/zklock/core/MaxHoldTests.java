package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

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
import dev.zklock.LockLostException;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A hold that outlives its {@code maxHold} is taken away, against a real
 * ZooKeeper server: announced as {@code MAX_HOLD_EXCEEDED}, its thread interrupted
 * when so configured, its node deleted so that the waiter of another instance gets
 * the lock with a higher token, and its late release quiet. A hold released in
 * time is left alone. The holder here ignores interrupts, as a wedged one would.
 */
@ExtendWith(OutputCaptureExtension.class)
class MaxHoldTests extends AbstractZooKeeperTests {

	private static final Duration CAP = Duration.ofMillis(300);

	private final List<LockInfo> losses = new CopyOnWriteArrayList<>();

	private final List<LockLossReason> reasons = new CopyOnWriteArrayList<>();

	// milliseconds from the grant, as the registry records it, to the announcement of each loss
	private final List<Long> lostAfterMillis = new CopyOnWriteArrayList<>();

	@BeforeEach
	void recordLosses() {
		this.manager.addLockLossListener((lock, reason) -> {
			this.lostAfterMillis.add(System.currentTimeMillis() - lock.since().toEpochMilli());
			this.losses.add(lock);
			this.reasons.add(reason);
		});
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void aWedgedBlockingHolderLosesTheLockAfterItsCap(LockMode mode, CapturedOutput output) throws Exception {
		this.manager.setInterruptOnLoss(true);
		CountDownLatch acquired = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		CompletableFuture<LockHandle> handle = new CompletableFuture<>();
		CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
		// the cap starts inside acquire(): after askedAt, before grantedAt
		long[] askedAt = new long[1];
		long[] grantedAt = new long[1];
		Thread holder = new Thread(() -> {
			askedAt[0] = System.nanoTime();
			LockHandle lock = this.manager.acquire(request(mode).maxHold(CAP).build());
			grantedAt[0] = System.nanoTime();
			handle.complete(lock);
			acquired.countDown();
			boolean wasInterrupted = false;
			// ignores interrupts, as a holder stuck in I/O would
			while (finish.getCount() > 0) {
				try {
					finish.await();
				}
				catch (InterruptedException ex) {
					wasInterrupted = true;
				}
			}
			interrupted.complete(wasInterrupted);
			lock.close();
		}, "wedged-holder");
		holder.start();
		assertThat(acquired.await(20, TimeUnit.SECONDS)).isTrue();
		long token = handle.get().fencingToken();
		AsyncLockManager otherAsync = otherManager().async(null);
		LockMode next = (mode == LockMode.READ) ? LockMode.WRITE : mode;
		AsyncLockHandle taken = otherAsync.acquire(request(next).build()).get(20, TimeUnit.SECONDS);
		long now = System.nanoTime();
		long takenOverAfter = now - grantedAt[0];
		assertThat(taken.isHeld()).isTrue();
		assertThat(taken.fencingToken()).isGreaterThan(token);
		// measured from before the cap could have started: a holder thread descheduled right after acquire()
		// returned would make the time since grantedAt look shorter than the cap (298 ms once, on JDK 25)
		assertThat(Duration.ofNanos(now - askedAt[0])).as("not before the cap").isGreaterThanOrEqualTo(CAP);
		assertThat(this.reasons).containsExactly(LockLossReason.MAX_HOLD_EXCEEDED);
		assertThat(handle.get().isHeld()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle.get()::assertHeld)
			.withMessageContaining("was taken away: it was held longer than its maxHold");
		finish.countDown();
		assertThat(interrupted.get(20, TimeUnit.SECONDS)).as("interrupt-on-loss").isTrue();
		holder.join(20_000);
		taken.release().get(20, TimeUnit.SECONDS);
		otherAsync.close();
		assertThat(ephemeralNodes()).isEmpty();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		assertThat(output).contains("is taken away after").doesNotContain("ERROR");
		System.out.printf("MAX HOLD %s: cap %d ms, the hold was lost %d ms after its grant and the next instance "
				+ "held the lock %.1f ms after acquire() returned%n", mode, CAP.toMillis(), this.lostAfterMillis.get(0),
				takenOverAfter / 1e6);
	}

	@Test
	void anAsynchronousHoldIsCappedByTheManagersDefault() throws Exception {
		this.manager.setDefaultMaxHold(CAP);
		AsyncLockHandle handle = this.asyncManager.acquire(request(LockMode.MUTEX).build()).get(20, TimeUnit.SECONDS);
		AsyncLockHandle taken = otherManager().async(null).acquire(request(LockMode.MUTEX).build()).get(20,
				TimeUnit.SECONDS);
		assertThat(taken.fencingToken()).isGreaterThan(handle.fencingToken());
		assertThat(handle.isHeld()).isFalse();
		assertThat(this.reasons).containsExactly(LockLossReason.MAX_HOLD_EXCEEDED);
		handle.release().get(20, TimeUnit.SECONDS);
		taken.release().get(20, TimeUnit.SECONDS);
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void aHoldReleasedWithinItsCapIsLeftAlone() throws Exception {
		try (LockHandle handle = this.manager.acquire(request(LockMode.MUTEX).maxHold(Duration.ofMinutes(5)).build())) {
			assertThat(handle.isHeld()).isTrue();
		}
		this.manager.setDefaultMaxHold(CAP);
		try (LockHandle handle = this.manager.acquire(request(LockMode.MUTEX).build())) {
			assertThat(handle.isHeld()).isTrue();
		}
		// a cancelled cap does not fire: the next hold of the key is not taken away after the old cap
		this.manager.setDefaultMaxHold(null);
		try (LockHandle handle = this.manager.acquire(request(LockMode.MUTEX).build())) {
			CompletableFuture<AsyncLockHandle> waiter = otherManager().async(null)
				.acquire(request(LockMode.MUTEX).timeout(CAP.multipliedBy(3)).build());
			assertThat(waiter.get(20, TimeUnit.SECONDS).isAcquired()).as("taken away although released in time")
				.isFalse();
			assertThat(handle.isHeld()).isTrue();
		}
		assertThat(this.losses).isEmpty();
	}

	private static LockRequest.Builder request(LockMode mode) {
		LockRequest.Builder builder = LockRequest.named("report").keys("daily").mode(mode).timeout(Duration.ofSeconds(20));
		return (mode == LockMode.SEMAPHORE) ? builder.permits(1) : builder;
	}

}
