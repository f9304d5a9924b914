package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockManager;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Published waits (#42, step 4): a wait behind another holder past {@code after}
 * creates one record under {@code <base-path>/#waits}, naming the waiter, its node
 * and the locks its thread holds; the record goes when the wait ends, however it
 * ends, and a wait whose node changed is published again.
 * Each waiter here holds a lock already: one that holds nothing publishes nothing
 * (DeadlockTests shows that).
 */
class DeadlockPublishingTests extends AbstractZooKeeperTests {

	private static final Duration AFTER = Duration.ofMillis(200);

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final LockRequest INNER = LockRequest.named("stock").keys("7").timeout(WAIT).build();

	// an asynchronous wait that took stock:1 before it waits for stock:7: a waiter that holds nothing publishes nothing
	private static final LockRequest ASYNC_INNER = LockRequest.named("stock").keys("1", "7").timeout(WAIT).build();

	// what each waiter of these tests holds while it waits: a waiter that holds nothing publishes nothing
	private static final LockRequest OUTER = LockRequest.named("orders").keys("1").timeout(WAIT).build();

	@BeforeEach
	void detectAfterTheMark() {
		this.manager.setDeadlockDetection(new DeadlockDetectionSettings(true, AFTER, 10, "orders"));
	}

	@Test
	void aNestedWaitPublishesWhatItWaitsForAndHoldsUntilGranted() throws Exception {
		CountDownLatch leave = new CountDownLatch(1);
		CompletableFuture<Boolean> nested = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			try (LockHandle outer = this.manager.acquire(LockRequest.named("orders").keys("1").build());
					LockHandle inner = this.manager.acquire(INNER)) {
				nested.complete(outer.isAcquired() && inner.isAcquired());
				leave.await();
			}
			catch (Throwable ex) {
				nested.completeExceptionally(ex);
			}
		}, "nested-waiter");
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), INNER)) {
			waiter.start();
			await().atMost(WAIT).until(() -> records().size() == 1);
			WaitRecord record = records().get(0);
			String outerQueue = this.manager.pathFor("orders", "1");
			String innerQueue = this.manager.pathFor("stock", "7");
			assertThat(record.party().app()).isEqualTo("orders");
			assertThat(record.party().thread()).isEqualTo("nested-waiter");
			assertThat(record.party().session())
				.isEqualTo(client.getZookeeperClient().getZooKeeper().getSessionId());
			assertThat(record.threadId()).isEqualTo(waiter.getId());
			assertThat(record.waitsFor().name()).isEqualTo("stock");
			assertThat(record.waitsFor().key()).isEqualTo("7");
			assertThat(record.waitsFor().mode()).isEqualTo(LockMode.MUTEX);
			assertThat(record.queue()).isEqualTo(innerQueue);
			assertThat(client.getChildren().forPath(innerQueue)).hasSize(2).contains(record.node());
			assertThat(record.holds()).singleElement().satisfies((held) -> {
				assertThat(held.lock().name()).isEqualTo("orders");
				assertThat(held.lock().key()).isEqualTo("1");
				assertThat(held.path()).isEqualTo(outerQueue + "/" + client.getChildren().forPath(outerQueue).get(0));
			});
			assertThat(nested).isNotDone();
		}
		assertThat(nested.get(30, TimeUnit.SECONDS)).isTrue();
		// granted: its delete was sent before the grant was handed over
		await().atMost(WAIT).until(() -> records().isEmpty());
		leave.countDown();
		waiter.join(TimeUnit.SECONDS.toMillis(30));
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void aWaitThatTimesOutRemovesItsRecord() throws Exception {
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), INNER)) {
			try (LockHandle outer = this.manager.acquire(OUTER)) {
				try (LockHandle handle = this.manager.acquire(LockRequest.named("stock").keys("7")
					.timeout(Duration.ofMillis(1500))
					.build())) {
					assertThat(handle.isAcquired()).isFalse();
				}
				assertThat(records()).isEmpty();
			}
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void anInterruptedWaitRemovesItsRecord() throws Exception {
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), INNER)) {
			Waiter waiter = new Waiter(this.manager, INNER);
			await().atMost(WAIT).until(() -> records().size() == 1);
			waiter.thread.interrupt();
			assertThat(waiter.failure.get(30, TimeUnit.SECONDS)).isInstanceOf(LockException.class);
			assertThat(records()).isEmpty();
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void aCancelledAsynchronousWaitRemovesItsRecord() throws Exception {
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), INNER)) {
			CompletableFuture<AsyncLockHandle> waiting = this.asyncManager.acquire(ASYNC_INNER);
			await().atMost(WAIT).until(() -> records().size() == 1);
			assertThat(records().get(0).party().thread()).isEqualTo("async");
			assertThat(waiting.cancel(true)).isTrue();
			await().atMost(WAIT).until(() -> records().isEmpty());
			await().atMost(WAIT).until(() -> this.manager.getRegistry().waitingCount() == 0);
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void aShutdownEndsTheWaitAndRemovesItsRecord() throws Exception {
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), INNER)) {
			Waiter waiter = new Waiter(this.manager, INNER);
			await().atMost(WAIT).until(() -> records().size() == 1);
			this.manager.beginShutdown();
			assertThat(waiter.failure.get(30, TimeUnit.SECONDS)).isInstanceOf(LockException.class);
			assertThat(records()).isEmpty();
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void closingTheManagerRemovesTheRecordsOfItsWaits() throws Exception {
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), INNER)) {
			CompletableFuture<AsyncLockHandle> waiting = this.asyncManager.acquire(ASYNC_INNER);
			await().atMost(WAIT).until(() -> records().size() == 1);
			this.asyncManager.close();
			this.manager.close();
			assertThat(waiting).failsWithin(Duration.ofSeconds(30));
			await().atMost(WAIT).until(() -> records().isEmpty());
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void aWaitThatFailsOnAZooKeeperErrorRemovesItsRecord() throws Exception {
		try (FaultyZooKeeper faulty = new FaultyZooKeeper();
				CuratorLockManager waiterManager = new CuratorLockManager(faulty.client(), this.basePath, WAIT);
				CuratorLockManager readers = new CuratorLockManager(faulty.client(), this.basePath, WAIT)) {
			waiterManager.setDeadlockDetection(new DeadlockDetectionSettings(true, AFTER, 10, null));
			LockRequest read = LockRequest.named("stock").keys("7").mode(LockMode.READ).timeout(WAIT).build();
			String path = waiterManager.pathFor("stock", "7");
			try (BackgroundHolder first = BackgroundHolder.hold(readers, read);
					BackgroundHolder second = BackgroundHolder.hold(readers, read)) {
				Waiter waiter = new Waiter(waiterManager,
						LockRequest.named("stock").keys("7").mode(LockMode.WRITE).timeout(WAIT).build());
				await().atMost(WAIT).until(() -> records(faulty.client()).size() == 1);
				// behind two readers, the writer reads the queue when the one ahead goes: that read fails
				faulty.fail(FaultyZooKeeper.Op.CHILDREN, path, -1);
				second.close();
				assertThat(waiter.failure.get(30, TimeUnit.SECONDS)).isInstanceOf(LockException.class);
				assertThat(faulty.failed(FaultyZooKeeper.Op.CHILDREN)).isPositive();
				faulty.clear(FaultyZooKeeper.Op.CHILDREN, path);
				assertThat(records(faulty.client())).isEmpty();
			}
			assertThat(ZooKeeperTestSupport.ephemeralNodes(faulty.client(), this.basePath)).isEmpty();
		}
	}

	@Test
	void aWaitWhoseNodeVanishesIsPublishedAgainWithItsNewNode() throws Exception {
		LockRequest read = LockRequest.named("stock").keys("7").mode(LockMode.READ).timeout(WAIT).build();
		try (BackgroundHolder first = BackgroundHolder.hold(otherManager(), read);
				BackgroundHolder second = BackgroundHolder.hold(otherManager(), read)) {
			Waiter waiter = new Waiter(this.manager,
					LockRequest.named("stock").keys("7").mode(LockMode.WRITE).timeout(WAIT).build());
			await().atMost(WAIT).until(() -> records().size() == 1);
			WaitRecord published = records().get(0);
			List<String> readers = client.getChildren().forPath(published.queue())
				.stream()
				.filter((node) -> !node.equals(published.node()))
				.sorted(Comparator.comparing((node) -> node.substring(node.length() - 10)))
				.toList();
			// deleted under it, as an operator might: woken by the reader ahead going, the writer finds its own node
			// gone, queues again behind the first reader, and its record follows
			client.delete().forPath(published.nodePath());
			client.delete().forPath(published.queue() + "/" + readers.get(1));
			await().atMost(WAIT)
				.until(() -> records().size() == 1 && !records().get(0).node().equals(published.node()));
			WaitRecord again = records().get(0);
			assertThat(again.party().session()).isEqualTo(published.party().session());
			assertThat(again.holds()).isEqualTo(published.holds());
			assertThat(client.getChildren().forPath(again.queue())).contains(again.node())
				.doesNotContain(published.node());
			first.close();
			assertThat(waiter.failure.get(30, TimeUnit.SECONDS)).isNull();
			assertThat(records()).isEmpty();
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void aWaitWhoseSessionExpiresLosesItsRecordWithItAndItsOuterLockToo() throws Exception {
		try (CuratorFramework waiterClient = ZooKeeperTestSupport.startClient(server.getConnectString());
				CuratorLockManager waiterManager = new CuratorLockManager(waiterClient, this.basePath, WAIT);
				BackgroundHolder holder = BackgroundHolder.hold(this.manager, INNER)) {
			waiterManager.setDeadlockDetection(new DeadlockDetectionSettings(true, AFTER, 10, null));
			Waiter waiter = new Waiter(waiterManager, INNER);
			await().atMost(WAIT).until(() -> records().size() == 1);
			WaitRecord first = records().get(0);
			long expired = ZooKeeperSessions.expire(waiterClient);
			assertThat(first.party().session()).isEqualTo(expired);
			// the record goes with the session; the outer lock did too, so the wait on its new node holds nothing
			// and publishes nothing
			String queue = first.queue();
			await().atMost(WAIT).until(() -> {
				List<String> children = client.getChildren().forPath(queue);
				return children.size() == 2 && !children.contains(first.node());
			});
			await().during(AFTER.multipliedBy(2)).atMost(WAIT).until(() -> records().isEmpty());
			holder.close();
			assertThat(waiter.failure.get(30, TimeUnit.SECONDS)).isNull();
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	/**
	 * A thread that holds {@link #OUTER}, waits for a lock and keeps what ended its
	 * wait: {@code null} when it was granted.
	 */
	private static final class Waiter {

		private final CompletableFuture<@Nullable Throwable> failure = new CompletableFuture<>();

		private final Thread thread;

		Waiter(LockManager manager, LockRequest request) {
			this.thread = new Thread(() -> {
				try (LockHandle outer = manager.acquire(OUTER); LockHandle handle = manager.acquire(request)) {
					this.failure.complete(null);
				}
				catch (Throwable ex) {
					this.failure.complete(ex);
				}
			}, "waiter-" + request.name());
			this.thread.start();
		}

	}

	// The records under <base-path>/#waits, read back as any instance reads them
	private List<WaitRecord> records() throws Exception {
		return records(client);
	}

	private List<WaitRecord> records(CuratorFramework reader) throws Exception {
		String waits = this.basePath + "/" + LockPaths.WAITS;
		List<WaitRecord> records = new ArrayList<>();
		try {
			for (String child : reader.getChildren().forPath(waits)) {
				records.add(WaitRecord.decode(reader.getData().forPath(waits + "/" + child)));
			}
		}
		catch (KeeperException.NoNodeException ex) {
			// no wait published yet, or a record deleted between the listing and its read
		}
		return records;
	}

}
