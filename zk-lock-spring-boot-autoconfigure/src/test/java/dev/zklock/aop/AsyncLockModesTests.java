package dev.zklock.aop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.AsyncLockManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Asynchronous methods take every mode, against a real ZooKeeper server: READ
 * holders overlap while a WRITE excludes them all, a SEMAPHORE admits at most its
 * permits, and two keys taken in opposite orders never deadlock.
 */
class AsyncLockModesTests {

	private static final Executor LATER = CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS);

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withBean(Documents.class)
		.withPropertyValues("zk-lock.default-timeout=60s");

	@Test
	void fiftyAsyncReadersOverlapWhileAWriterExcludesThemAll() {
		this.contextRunner.run((context) -> {
			Documents documents = context.getBean(Documents.class);
			CompletableFuture<Void> readersGo = new CompletableFuture<>();
			List<CompletableFuture<Void>> readers = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				readers.add(documents.read("doc-1", readersGo));
			}
			// all fifty hold the read lock at once
			await().atMost(60, TimeUnit.SECONDS).until(() -> documents.readers().get() == 50);
			CompletableFuture<Void> writerGo = new CompletableFuture<>();
			CompletableFuture<Void> writer = documents.write("doc-1", writerGo);
			await().atMost(10, TimeUnit.SECONDS)
				.until(() -> context.getBean(AsyncLockManager.class).getRegistry().waitingCount() == 1);
			assertThat(documents.writers().get()).isZero();
			readersGo.complete(null);
			CompletableFuture.allOf(readers.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
			await().atMost(30, TimeUnit.SECONDS).until(() -> documents.writers().get() == 1);
			CompletableFuture<Void> lateReadersGo = CompletableFuture.completedFuture(null);
			List<CompletableFuture<Void>> lateReaders = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				lateReaders.add(documents.read("doc-1", lateReadersGo));
			}
			await().atMost(10, TimeUnit.SECONDS)
				.until(() -> context.getBean(AsyncLockManager.class).getRegistry().waitingCount() == 10);
			assertThat(documents.entered().get()).isEqualTo(51);
			writerGo.complete(null);
			writer.get(30, TimeUnit.SECONDS);
			CompletableFuture.allOf(lateReaders.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
			assertThat(documents.entered().get()).isEqualTo(61);
			assertThat(documents.overlaps().get()).isZero();
			assertThat(documents.maxReaders().get()).isEqualTo(50);
			assertNoLockNodes(context);
		});
	}

	@Test
	void asyncSemaphoreAdmitsAtMostItsPermits() {
		this.contextRunner.run((context) -> {
			Documents documents = context.getBean(Documents.class);
			List<CompletableFuture<Void>> calls = new ArrayList<>();
			for (int i = 0; i < 30; i++) {
				calls.add(documents.print("printer"));
			}
			CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(120, TimeUnit.SECONDS);
			assertThat(documents.printed().get()).isEqualTo(30);
			assertThat(documents.maxPrinting().get()).isEqualTo(3);
			assertNoLockNodes(context);
		});
	}

	@Test
	void twoKeysInOppositeOrdersNeverDeadlock() {
		this.contextRunner.run((context) -> {
			Documents documents = context.getBean(Documents.class);
			for (int round = 0; round < 1000; round++) {
				CompletableFuture<Void> forward = documents.transfer("a", "b");
				CompletableFuture<Void> backward = documents.transfer("b", "a");
				CompletableFuture.allOf(forward, backward).get(30, TimeUnit.SECONDS);
			}
			assertThat(documents.transfers().get()).isEqualTo(2000);
			assertThat(documents.maxTransferring().get()).isEqualTo(1);
			assertNoLockNodes(context);
		});
	}

	private static void assertNoLockNodes(ApplicationContext context) {
		CuratorFramework client = context.getBean(CuratorFramework.class);
		String basePath = context.getBean(AsyncLockManager.class).getBasePath();
		await().atMost(10, TimeUnit.SECONDS).until(() -> TestZooKeeper.ephemeralNodes(client, basePath) == 0);
		assertThat(context.getBean(AsyncLockManager.class).getRegistry().snapshot()).isEmpty();
	}

	static class Documents {

		final AtomicInteger readers = new AtomicInteger();

		final AtomicInteger maxReaders = new AtomicInteger();

		final AtomicInteger writers = new AtomicInteger();

		final AtomicInteger entered = new AtomicInteger();

		final AtomicInteger overlaps = new AtomicInteger();

		final AtomicInteger printing = new AtomicInteger();

		final AtomicInteger maxPrinting = new AtomicInteger();

		final AtomicInteger printed = new AtomicInteger();

		final AtomicInteger transferring = new AtomicInteger();

		final AtomicInteger maxTransferring = new AtomicInteger();

		final AtomicInteger transfers = new AtomicInteger();

		@DistributedLock(name = "doc", key = "#id", mode = LockMode.READ)
		public CompletableFuture<Void> read(String id, CompletableFuture<Void> go) {
			this.entered.incrementAndGet();
			this.maxReaders.accumulateAndGet(this.readers.incrementAndGet(), Math::max);
			if (this.writers.get() > 0) {
				this.overlaps.incrementAndGet();
			}
			return go.thenRunAsync(this.readers::decrementAndGet, LATER);
		}

		@DistributedLock(name = "doc", key = "#id", mode = LockMode.WRITE)
		public CompletableFuture<Void> write(String id, CompletableFuture<Void> go) {
			this.entered.incrementAndGet();
			if (this.writers.incrementAndGet() > 1 || this.readers.get() > 0) {
				this.overlaps.incrementAndGet();
			}
			return go.thenRunAsync(this.writers::decrementAndGet, LATER);
		}

		@DistributedLock(name = "pool", key = "#name", mode = LockMode.SEMAPHORE, permits = 3)
		public CompletableFuture<Void> print(String name) {
			this.maxPrinting.accumulateAndGet(this.printing.incrementAndGet(), Math::max);
			return CompletableFuture.runAsync(() -> {
				this.printing.decrementAndGet();
				this.printed.incrementAndGet();
			}, CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));
		}

		@DistributedLock(name = "account", key = "{#from, #to}")
		public CompletableFuture<Void> transfer(String from, String to) {
			this.maxTransferring.accumulateAndGet(this.transferring.incrementAndGet(), Math::max);
			return CompletableFuture.runAsync(() -> {
				this.transferring.decrementAndGet();
				this.transfers.incrementAndGet();
			}, LATER);
		}


		public AtomicInteger readers() {
			return this.readers;
		}

		public AtomicInteger maxReaders() {
			return this.maxReaders;
		}

		public AtomicInteger writers() {
			return this.writers;
		}

		public AtomicInteger entered() {
			return this.entered;
		}

		public AtomicInteger overlaps() {
			return this.overlaps;
		}

		public AtomicInteger printing() {
			return this.printing;
		}

		public AtomicInteger maxPrinting() {
			return this.maxPrinting;
		}

		public AtomicInteger printed() {
			return this.printed;
		}

		public AtomicInteger transferring() {
			return this.transferring;
		}

		public AtomicInteger maxTransferring() {
			return this.maxTransferring;
		}

		public AtomicInteger transfers() {
			return this.transfers;
		}
	}

}
