package dev.zklock.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.LockContext;
import dev.zklock.LockLostException;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.aop.DistributedLockMinHoldTests.LostEvents;
import dev.zklock.autoconfigure.ZkLockProperties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @DistributedLock} method extends its own hold through
 * {@link LockContext#current()}: with a short {@code maxHold}, it keeps the lock past
 * that cap, as another instance of the application waiting for it shows; once its
 * hold was taken away, extending it fails with {@link LockLostException}.
 */
class DistributedLockExtendMaxHoldTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withBean(Job.class)
		.withBean(LostEvents.class);

	@Test
	void aMethodThatExtendsItsHoldKeepsItPastItsFirstMaxHold() {
		this.contextRunner.run((first) -> {
			String basePath = first.getBean(ZkLockProperties.class).getBasePath();
			this.contextRunner.withPropertyValues("zk-lock.base-path=" + basePath).run((other) -> {
				Job job = first.getBean(Job.class);
				CompletableFuture<String> running = CompletableFuture.supplyAsync(job::extendAndHold);
				assertThat(job.awaitExtended()).as("extended").isTrue();
				long start = System.nanoTime();
				// waits for longer than the first maxHold, which would have taken the lock away
				assertThat(other.getBean(Job.class).waitForIt()).as("another instance, past the first maxHold")
					.isNull();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Job.FIRST_MAX_HOLD);
				job.finish();
				assertThat(running.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("held throughout");
				assertThat(first.getBean(LostEvents.class).events).isEmpty();
				assertThat(other.getBean(Job.class).waitForIt()).as("free once the method returned")
					.isEqualTo("got it");
			});
		});
	}

	@Test
	void aMethodWhoseHoldWasTakenAwayCannotExtendIt() {
		this.contextRunner.run((context) -> {
			Job job = context.getBean(Job.class);
			// the method returns after its lock was lost, which the aspect reports as it always does
			assertThatExceptionOfType(LockLostException.class).isThrownBy(job::extendAfterLoss);
			assertThat(job.refused()).as("extending after the loss").isNotNull()
				.hasMessageContaining("'extended'")
				.hasMessageContaining("was taken away");
			assertThat(context.getBean(LostEvents.class).events).hasSize(1);
		});
	}

	static class Job {

		static final Duration FIRST_MAX_HOLD = Duration.ofSeconds(1);

		private final CountDownLatch extended = new CountDownLatch(1);

		private final CountDownLatch done = new CountDownLatch(1);

		private final AtomicReference<@Nullable LockLostException> refused = new AtomicReference<>();

		// methods, not fields: the test sees the bean through its proxy
		public boolean awaitExtended() throws InterruptedException {
			return this.extended.await(WAIT.toSeconds(), TimeUnit.SECONDS);
		}

		public void finish() {
			this.done.countDown();
		}

		public @Nullable LockLostException refused() {
			return this.refused.get();
		}

		@DistributedLock(name = "extended", timeout = "0", maxHold = "1s")
		public String extendAndHold() {
			LockContext.current().extendMaxHold(WAIT);
			this.extended.countDown();
			try {
				assertThat(this.done.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("told to return").isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			LockContext.current().assertHeld();
			return "held throughout";
		}

		// longer than the first maxHold, shorter than the extended one
		@DistributedLock(name = "extended", timeout = "3s", onTimeout = OnTimeout.SKIP)
		public @Nullable String waitForIt() {
			return "got it";
		}

		@DistributedLock(name = "extended", timeout = "0", maxHold = "1s")
		public void extendAfterLoss() {
			LockContext lock = LockContext.current();
			await().atMost(WAIT).until(() -> !lock.isHeld());
			this.refused.set(catchThrowableOfType(LockLostException.class, () -> lock.extendMaxHold(WAIT)));
		}

	}

}
