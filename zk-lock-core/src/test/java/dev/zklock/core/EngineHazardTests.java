package dev.zklock.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;

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
				BlockingLocks.awaitRelease("orders", new CompletableFuture<>(), Duration.ofMillis(500));
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
		assertThat(failure.getNow(null)).isInstanceOf(LockException.class).hasMessageContaining("not confirmed");
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
