package dev.zklock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockInfo;
import dev.zklock.LockLossReason;
import dev.zklock.LockLostException;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The shutdown of an engine against a real ZooKeeper server: waits end at once
 * with their nodes deleted, holds released in time are not touched, and holds that
 * outlast the drain are given up, announced before their node goes, with a quiet
 * release afterwards. The other manager on the same base path plays the
 * application instance that does not stop.
 */
@ExtendWith(OutputCaptureExtension.class)
class ShutdownDrainTests extends AbstractZooKeeperTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private CuratorLockManager other;

	private final List<Loss> losses = new CopyOnWriteArrayList<>();

	@BeforeEach
	void createOtherInstance() {
		this.other = new CuratorLockManager(client, this.basePath, Duration.ofSeconds(30));
		this.manager.addLockLossListener((lock, reason) -> this.losses.add(new Loss(lock, reason, nodeExists(lock))));
	}

	@AfterEach
	void closeOtherInstance() {
		this.other.close();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void beginShutdownEndsABlockingWaitAndDeletesItsNode(LockMode mode) throws Exception {
		// a READ waits behind a writer
		LockHandle held = this.other.acquire(request("order", (mode == LockMode.READ) ? LockMode.WRITE : mode, WAIT));
		int before = ephemeralNodes().size();
		CompletableFuture<LockHandle> waiter = CompletableFuture
			.supplyAsync(() -> this.manager.acquire(request("order", mode, WAIT)));
		await().atMost(WAIT).until(() -> ephemeralNodes().size() > before);
		this.manager.beginShutdown();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> waiter.get(20, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(LockException.class)
			.withMessageContaining("Lock 'x' key 'order' was not acquired")
			.withMessageContaining("the application is shutting down");
		assertThat(ephemeralNodes()).hasSize(before);
		assertThat(held.isHeld()).isTrue();
		held.close();
	}

	@Test
	void beginShutdownEndsAnAsynchronousWait() throws Exception {
		LockHandle held = this.other.acquire(request("order", LockMode.MUTEX, WAIT));
		CompletableFuture<AsyncLockHandle> waiter = this.asyncManager.acquire(request("order", LockMode.MUTEX, WAIT));
		await().atMost(WAIT).until(() -> ephemeralNodes().size() == 2);
		this.asyncManager.beginShutdown();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> waiter.get(20, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(LockException.class)
			.withMessageContaining("asynchronous MUTEX mode: the application is shutting down");
		assertThat(ephemeralNodes()).hasSize(1);
		held.close();
	}

	@Test
	void noNewLockIsTakenAfterTheShutdownBeganButAHeldOneIsReentered() throws Exception {
		try (LockHandle outer = this.manager.acquire(request("order", LockMode.MUTEX, WAIT))) {
			this.manager.beginShutdown();
			try (LockHandle inner = this.manager.acquire(request("order", LockMode.MUTEX, WAIT))) {
				assertThat(inner.isHeld()).isTrue();
			}
			assertThatExceptionOfType(LockException.class)
				.isThrownBy(() -> this.manager.acquire(request("invoice", LockMode.MUTEX, WAIT)))
				.withMessageContaining("Cannot acquire lock 'x': the application is shutting down");
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> this.asyncManager.acquire(request("invoice", LockMode.MUTEX, WAIT)).get())
				.havingCause()
				.isInstanceOf(LockException.class);
			assertThat(outer.isHeld()).isTrue();
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void drainWaitsForAHoldReleasedInTime() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch acquired = new CountDownLatch(1);
		CompletableFuture<Boolean> work = CompletableFuture.supplyAsync(() -> {
			try (LockHandle handle = this.manager.acquire(request("order", LockMode.MUTEX, WAIT))) {
				acquired.countDown();
				release.await();
				return handle.isHeld();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		assertThat(acquired.await(20, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Integer> drain = CompletableFuture.supplyAsync(() -> this.manager.drain(WAIT));
		assertThat(drain).isNotDone();
		release.countDown();
		assertThat(drain.get(20, TimeUnit.SECONDS)).isZero();
		assertThat(work.get(20, TimeUnit.SECONDS)).as("held until its work ended").isTrue();
		assertThat(this.losses).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void drainGivesUpAHoldThatOutlastsItAnnouncingItBeforeTheNodeGoes(LockMode mode, CapturedOutput output)
			throws Exception {
		this.manager.setInterruptOnLoss(true);
		CountDownLatch acquired = new CountDownLatch(1);
		CompletableFuture<LockHandle> handle = new CompletableFuture<>();
		CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
		CountDownLatch closeNow = new CountDownLatch(1);
		Thread holder = new Thread(() -> {
			LockHandle lock = this.manager.acquire(request("order", mode, WAIT));
			handle.complete(lock);
			acquired.countDown();
			try {
				new CountDownLatch(1).await();
				interrupted.complete(false);
			}
			catch (InterruptedException ex) {
				interrupted.complete(true);
			}
			try {
				closeNow.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			// the release after the loss does nothing, and says nothing
			lock.close();
		}, "shutdown-holder");
		holder.start();
		assertThat(acquired.await(20, TimeUnit.SECONDS)).isTrue();
		long token = handle.get().fencingToken();
		LockMode next = (mode == LockMode.READ) ? LockMode.WRITE : mode;
		int before = ephemeralNodes().size();
		AsyncLockManager otherAsync = this.other.async(null);
		CompletableFuture<AsyncLockHandle> successor = otherAsync.acquire(request("order", next, WAIT));
		await().atMost(WAIT).until(() -> ephemeralNodes().size() > before);

		assertThat(this.manager.drain(Duration.ofMillis(100))).isEqualTo(1);

		assertThat(this.losses).singleElement().satisfies((loss) -> {
			assertThat(loss.reason()).isEqualTo(LockLossReason.SHUTDOWN);
			assertThat(loss.lock().fencingToken()).isEqualTo(token);
			assertThat(loss.nodeExisted()).as("the node was still there when the loss was announced").isTrue();
		});
		assertThat(interrupted.get(20, TimeUnit.SECONDS)).as("interrupt-on-loss").isTrue();
		assertThat(handle.get().isHeld()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle.get()::assertHeld)
			.withMessageContaining("was given up at shutdown");
		AsyncLockHandle taken = successor.get(20, TimeUnit.SECONDS);
		assertThat(taken.isHeld()).isTrue();
		assertThat(taken.fencingToken()).isGreaterThan(token);
		closeNow.countDown();
		holder.join(20_000);
		await().atMost(WAIT).until(() -> this.manager.getRegistry().snapshot().isEmpty());
		taken.release().get(20, TimeUnit.SECONDS);
		otherAsync.close();
		assertThat(output).contains("is given up at shutdown after").doesNotContain("ERROR");
	}

	@Test
	void anAsynchronousHoldGivenUpReleasesQuietly(CapturedOutput output) throws Exception {
		AsyncLockHandle handle = this.asyncManager.acquire(request("order", LockMode.WRITE, WAIT))
			.get(20, TimeUnit.SECONDS);
		assertThat(this.asyncManager.drain(Duration.ofMillis(50))).isEqualTo(1);
		assertThat(handle.isHeld()).isFalse();
		assertThat(this.losses).singleElement().extracting(Loss::reason).isEqualTo(LockLossReason.SHUTDOWN);
		assertThat(ephemeralNodes()).isEmpty();
		handle.release().get(20, TimeUnit.SECONDS);
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		assertThat(output).doesNotContain("ERROR");
	}

	private LockRequest request(String key, LockMode mode, Duration timeout) {
		LockRequest.Builder builder = LockRequest.named("x").keys(key).mode(mode).timeout(timeout);
		return (mode == LockMode.SEMAPHORE) ? builder.permits(1).build() : builder.build();
	}

	private static boolean nodeExists(LockInfo lock) {
		try {
			return client.checkExists().forPath(lockNode(lock)) != null;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	// the registry shows the lock path; the holder's node is the only child with its token
	private static String lockNode(LockInfo lock) throws Exception {
		String parent = lock.path();
		for (String child : client.getChildren().forPath(parent)) {
			String path = parent + "/" + child;
			if (client.checkExists().forPath(path).getCzxid() == lock.fencingToken()) {
				return path;
			}
		}
		return parent + "/(none)";
	}

	private record Loss(LockInfo lock, LockLossReason reason, boolean nodeExisted) {

	}

}
