package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.zklock.LockContext;
import dev.zklock.LockHandle;
import dev.zklock.LockLossReason;
import dev.zklock.LockLostException;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.LostLockAction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code extendMaxHold} against a real ZooKeeper server: an extended hold outlives
 * its first {@code maxHold}, blocking and asynchronous, and is still taken away
 * once the extended cap runs out; a lock taken without a cap gets one; a hold lost
 * or released cannot be extended; bad durations are refused; and no extension
 * leaves a timer, a node or a registry entry behind. Another instance of the
 * application, waiting for the same key, is what shows whether the hold is still
 * there.
 */
class ExtendMaxHoldTests extends AbstractZooKeeperTests {

	private static final Duration FIRST_CAP = Duration.ofMillis(400);

	private static final Duration EXTENDED_CAP = Duration.ofSeconds(2);

	// longer than the first cap: a waiter that gives up after it proves the hold outlived that cap
	private static final Duration PAST_FIRST_CAP = FIRST_CAP.multipliedBy(3);

	private final List<LockLossReason> losses = new CopyOnWriteArrayList<>();

	@BeforeEach
	void recordLosses() {
		this.manager.addLockLossListener((lock, reason) -> this.losses.add(reason));
	}

	@Test
	void aBlockingHoldExtendedThroughAReenteredHandleOutlivesItsFirstMaxHold() throws Exception {
		try (LockHandle outer = this.manager.acquire(request().maxHold(FIRST_CAP).build())) {
			// taken before the call: the new cap starts inside it
			long extendedAt = System.nanoTime();
			try (LockHandle inner = this.manager.acquire(request().build())) {
				// one hold: extending the re-entered handle extends the outer one
				inner.extendMaxHold(EXTENDED_CAP);
			}
			assertThat(otherInstanceGets(PAST_FIRST_CAP)).as("another instance, past the first maxHold").isFalse();
			assertThat(outer.isHeld()).isTrue();
			assertThat(this.losses).isEmpty();
			// the extended cap runs out in turn: the extension re-armed the timer rather than removed it
			assertThat(otherInstanceGets(Duration.ofSeconds(20))).isTrue();
			assertThat(Duration.ofNanos(System.nanoTime() - extendedAt)).isGreaterThanOrEqualTo(EXTENDED_CAP);
			assertThat(this.losses).containsExactly(LockLossReason.MAX_HOLD_EXCEEDED);
			assertThat(outer.isHeld()).isFalse();
		}
		assertNothingLeft();
	}

	@Test
	void anAsynchronousHoldExtendedOutlivesItsFirstMaxHold() throws Exception {
		AsyncLockHandle handle = this.asyncManager.acquire(request().maxHold(FIRST_CAP).build())
			.get(20, TimeUnit.SECONDS);
		handle.extendMaxHold(EXTENDED_CAP);
		assertThat(otherInstanceGets(PAST_FIRST_CAP)).isFalse();
		assertThat(handle.isHeld()).isTrue();
		assertThat(this.losses).isEmpty();
		handle.release().get(20, TimeUnit.SECONDS);
		assertNothingLeft();
	}

	@Test
	void extendingALockTakenWithoutMaxHoldSetsOne() throws Exception {
		try (LockHandle handle = this.manager.acquire(request().build())) {
			handle.extendMaxHold(FIRST_CAP);
			assertThat(otherInstanceGets(Duration.ofSeconds(20))).isTrue();
			assertThat(this.losses).containsExactly(LockLossReason.MAX_HOLD_EXCEEDED);
			assertThat(handle.isHeld()).isFalse();
		}
		assertNothingLeft();
	}

	@Test
	void aHoldTakenAwayOrReleasedCannotBeExtended() throws Exception {
		LockHandle blocking = this.manager.acquire(request().maxHold(Duration.ofMillis(200)).build());
		await().atMost(Duration.ofSeconds(20)).until(() -> this.losses.contains(LockLossReason.MAX_HOLD_EXCEEDED));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> blocking.extendMaxHold(EXTENDED_CAP))
			.withMessageContaining("'extend'")
			.withMessageContaining("was taken away");
		blocking.close();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> blocking.extendMaxHold(EXTENDED_CAP))
			.withMessageContaining("was released already");

		AsyncLockHandle async = this.asyncManager.acquire(request().maxHold(Duration.ofMillis(200)).build())
			.get(20, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(20)).until(() -> !async.isHeld());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> async.extendMaxHold(EXTENDED_CAP))
			.withMessageContaining("'extend'");
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> async.extendMaxHold(EXTENDED_CAP, Duration.ZERO).get(20, TimeUnit.SECONDS))
			.withCauseInstanceOf(LockLostException.class);
		async.release().get(20, TimeUnit.SECONDS);
		assertNothingLeft();
	}

	@Test
	void badDurationsAreRefusedNamingWhatToPass() throws Exception {
		try (LockHandle handle = this.manager.acquire(request().minHold(Duration.ofSeconds(2)).build())) {
			assertThatNullPointerException().isThrownBy(() -> handle.extendMaxHold(null))
				.withMessageContaining("'extend'")
				.withMessageContaining("maxHold");
			assertThatIllegalArgumentException().isThrownBy(() -> handle.extendMaxHold(Duration.ZERO))
				.withMessageContaining("must be positive");
			assertThatIllegalArgumentException().isThrownBy(() -> handle.extendMaxHold(Duration.ofSeconds(-1)))
				.withMessageContaining("must be positive");
			// shorter than what is left of the minHold: it would be taken away before it may be released
			assertThatIllegalArgumentException().isThrownBy(() -> handle.extendMaxHold(Duration.ofSeconds(1)))
				.withMessageContaining("minHold");
			assertThat(handle.isHeld()).isTrue();
		}
		AsyncLockHandle async = this.asyncManager.acquire(request().build()).get(20, TimeUnit.SECONDS);
		assertThatIllegalArgumentException().isThrownBy(() -> async.extendMaxHold(Duration.ZERO))
			.withMessageContaining("must be positive");
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> async.extendMaxHold(Duration.ofSeconds(1), Duration.ofSeconds(2)).get(20,
					TimeUnit.SECONDS))
			.withCauseInstanceOf(IllegalArgumentException.class);
		async.release().get(20, TimeUnit.SECONDS);
		assertThat(this.losses).isEmpty();
	}

	@Test
	void aLockTemplateCallbackExtendsItsHoldThroughItsLockContext() throws Exception {
		LockTemplate template = new LockTemplate(this.manager);
		boolean otherGotItPastFirstCap = template.execute(request().maxHold(FIRST_CAP).build(), () -> {
			// the callback sees only its LockContext, not the handle
			LockContext.current().extendMaxHold(EXTENDED_CAP);
			boolean got = otherInstanceGets(PAST_FIRST_CAP);
			LockContext.current().assertHeld();
			return got;
		});
		assertThat(otherGotItPastFirstCap).as("another instance, past the first maxHold").isFalse();
		assertThat(this.losses).isEmpty();
		assertNothingLeft();
	}

	@Test
	void aLockContextWhoseHoldWasTakenAwayCannotBeExtended() throws Exception {
		LockTemplate template = new LockTemplate(this.manager, LostLockAction.LOG);
		LockLostException refused = template.execute(request().maxHold(Duration.ofMillis(200)).build(), () -> {
			await().atMost(Duration.ofSeconds(20))
				.until(() -> this.losses.contains(LockLossReason.MAX_HOLD_EXCEEDED));
			return catchThrowableOfType(LockLostException.class,
					() -> LockContext.current().extendMaxHold(EXTENDED_CAP));
		});
		assertThat(refused).as("extending after the loss").isNotNull().hasMessageContaining("'extend'")
			.hasMessageContaining("was taken away");
		assertNothingLeft();
	}

	@Test
	void noExtensionLeavesATimerBehind() throws Exception {
		List<ScheduledFuture<?>> timers = new ArrayList<>();
		LockRegistry.HoldCap cap;
		try (LockHandle handle = this.manager.acquire(request().maxHold(Duration.ofMinutes(5)).build())) {
			cap = ((AbstractLockContext) handle).holds().get(0).entry().cap();
			timers.add(cap.timer());
			for (int i = 0; i < 50; i++) {
				handle.extendMaxHold(Duration.ofMinutes(5));
				timers.add(cap.timer());
			}
			assertThat(timers).doesNotContainNull().doesNotHaveDuplicates();
			assertThat(timers.subList(0, timers.size() - 1)).allMatch(ScheduledFuture::isCancelled);
			assertThat(timers.get(timers.size() - 1).isCancelled()).isFalse();
		}
		assertThat(timers.get(timers.size() - 1).isCancelled()).as("cancelled with the release").isTrue();
		assertThat((Object) cap.timer()).as("no timer left").isNull();
		assertThat(this.losses).isEmpty();
		assertNothingLeft();
	}

	// Whether another instance gets the lock within the wait, releasing it at once if so
	private boolean otherInstanceGets(Duration wait) throws Exception {
		AsyncLockHandle other = otherManager().async(null).acquire(request().timeout(wait).build())
			.get(wait.toSeconds() + 20, TimeUnit.SECONDS);
		if (!other.isAcquired()) {
			return false;
		}
		other.release().get(20, TimeUnit.SECONDS);
		return true;
	}

	private void assertNothingLeft() throws Exception {
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			assertThat(ephemeralNodes()).isEmpty();
			assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		});
	}

	private static LockRequest.Builder request() {
		return LockRequest.named("extend").keys("job").timeout(Duration.ofSeconds(20));
	}

}
