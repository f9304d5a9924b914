package dev.zklock;

import java.io.IOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.zklock.annotation.LockMode;
import dev.zklock.core.CuratorLockManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link LockTemplate} on a real ZooKeeper.
 */
class LockTemplateTests {

	private static TestingServer server;

	private static CuratorFramework client;

	private CuratorLockManager manager;

	private LockTemplate template;

	@BeforeAll
	static void startZooKeeper() throws Exception {
		server = new TestingServer(true);
		client = CuratorFrameworkFactory.newClient(server.getConnectString(), new ExponentialBackoffRetry(50, 3));
		client.start();
		client.blockUntilConnected(10, TimeUnit.SECONDS);
	}

	@AfterAll
	static void stopZooKeeper() throws Exception {
		client.close();
		server.close();
	}

	@BeforeEach
	void createTemplate() {
		this.manager = new CuratorLockManager(client, "/template-" + UUID.randomUUID(), Duration.ofSeconds(10));
		this.template = new LockTemplate(this.manager);
	}

	@Test
	void runsCallbackWhileHoldingTheLockAndReleasesAfter() throws Exception {
		LockRequest request = LockRequest.named("report").keys("2024").build();
		String result = this.template.execute(request, () -> {
			assertThat(this.manager.getRegistry().heldCount()).isOne();
			assertThat(acquiredInOtherThread(request.withTimeout(Duration.ZERO))).isFalse();
			return "done";
		});
		assertThat(result).isEqualTo("done");
		assertThat(this.manager.getRegistry().heldCount()).isZero();
		assertThat(acquiredInOtherThread(request.withTimeout(Duration.ZERO))).isTrue();
	}

	@Test
	void throwsLockTimeoutExceptionNamingLockKeysAndTimeoutWithoutRunningCallback() throws Exception {
		LockRequest request = LockRequest.named("report").keys("2024", "eu").mode(LockMode.WRITE).build();
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Thread holder = new Thread(() -> this.template.execute(request, () -> {
			held.countDown();
			return release.await(30, TimeUnit.SECONDS);
		}));
		holder.start();
		assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
		AtomicBoolean ran = new AtomicBoolean();
		assertThatExceptionOfType(LockTimeoutException.class)
			.isThrownBy(() -> this.template.execute(request.withTimeout(Duration.ofMillis(100)), () -> ran.getAndSet(true)))
			.withMessageContaining("'report'")
			.withMessageContaining("2024")
			.withMessageContaining("eu")
			.withMessageContaining("PT0.1S");
		assertThat(ran).isFalse();
		release.countDown();
		holder.join(10_000);
	}

	@Test
	void passesRuntimeExceptionsAndErrorsThroughUnchangedAndReleases() throws Exception {
		LockRequest request = LockRequest.named("n").keys("k").build();
		IllegalStateException runtime = new IllegalStateException("boom");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> this.template.execute(request, () -> {
			throw runtime;
		})).isSameAs(runtime);
		AssertionError error = new AssertionError("bad");
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> this.template.execute(request, () -> {
			throw error;
		})).isSameAs(error);
		assertThat(this.manager.getRegistry().heldCount()).isZero();
		assertThat(acquiredInOtherThread(request.withTimeout(Duration.ZERO))).isTrue();
	}

	@Test
	void wrapsCheckedExceptions() {
		IOException checked = new IOException("disk");
		assertThatExceptionOfType(UndeclaredThrowableException.class)
			.isThrownBy(() -> this.template.execute(LockRequest.named("n").build(), () -> {
				throw checked;
			}))
			.withCause(checked);
		assertThat(this.manager.getRegistry().heldCount()).isZero();
	}

	@Test
	void tryAcquireReturnsTheHandle() {
		try (LockHandle handle = this.template.tryAcquire(LockRequest.named("n").keys("k").build())) {
			assertThat(handle.isAcquired()).isTrue();
			assertThat(handle.name()).isEqualTo("n");
			assertThat(handle.keys()).containsExactly("k");
		}
		assertThat(this.manager.getRegistry().heldCount()).isZero();
	}

	@Test
	void addsReleaseFailureToCallbackExceptionAsSuppressed() {
		LockException releaseFailure = new LockException("release failed");
		LockTemplate failingRelease = new LockTemplate((request) -> new FailingCloseHandle(releaseFailure));
		IllegalStateException work = new IllegalStateException("work failed");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> failingRelease.execute(
				LockRequest.named("n").build(), () -> {
					throw work;
				})).isSameAs(work).satisfies((ex) -> assertThat(ex.getSuppressed()).containsExactly(releaseFailure));
		assertThatExceptionOfType(LockException.class)
			.isThrownBy(() -> failingRelease.execute(LockRequest.named("n").build(), () -> "ok"))
			.isSameAs(releaseFailure);
	}

	private boolean acquiredInOtherThread(LockRequest request) throws Exception {
		CompletableFuture<Boolean> result = new CompletableFuture<>();
		new Thread(() -> {
			try (LockHandle handle = this.manager.acquire(request)) {
				result.complete(handle.isAcquired());
			}
		}).start();
		return result.get(10, TimeUnit.SECONDS);
	}

	private record FailingCloseHandle(LockException failure) implements LockHandle {

		@Override
		public String name() {
			return "n";
		}

		@Override
		public List<String> keys() {
			return List.of();
		}

		@Override
		public LockMode mode() {
			return LockMode.MUTEX;
		}

		@Override
		public boolean isAcquired() {
			return true;
		}

		@Override
		public void close() {
			throw this.failure;
		}

	}

}
