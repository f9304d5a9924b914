package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.DefaultTracerDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.LockHandle;
import dev.zklock.LockManager;
import dev.zklock.LockRequest;
import dev.zklock.LockState;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The hand-off without a second read of the queue: a waiter whose last read showed
 * only the released node ahead (for READ, only one writer ahead) holds on its
 * deletion, and one that saw more does not. Queue: A holds, B waits, C waits
 * behind B; B leaves, by its timeout or with its session, and C must go on waiting
 * while A holds. Were the deletion of B taken as a hand-off, C would hold beside A.
 */
class HandOffTests extends AbstractZooKeeperTests {

	private static final Duration SHORT = Duration.ofMillis(1500);

	@ParameterizedTest(name = "{0} holds, {1} leaves, {2} waits")
	@CsvSource({ "MUTEX, MUTEX, MUTEX", "WRITE, WRITE, WRITE", "WRITE, READ, WRITE", "WRITE, WRITE, READ",
			"SEMAPHORE, SEMAPHORE, SEMAPHORE" })
	void aWaiterInTheMiddleThatTimesOutDoesNotHandTheLockOn(LockMode a, LockMode b, LockMode c) throws Exception {
		String path = this.manager.pathFor("orders", "42");
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, request(a, Duration.ofSeconds(30)))) {
			CompletableFuture<Boolean> middle = acquireLater(this.manager, request(b, SHORT));
			awaitNodes(path, 2);
			CompletableFuture<Boolean> last = acquireLater(this.manager, request(c, Duration.ofSeconds(30)));
			awaitNodes(path, 3);
			assertThat(middle.get(30, TimeUnit.SECONDS)).as("the middle waiter timed out").isFalse();
			awaitNodes(path, 2);
			await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> !last.isDone());
			holder.close();
			assertThat(last.get(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@ParameterizedTest(name = "{0} holds, {1} expires, {2} waits")
	@CsvSource({ "MUTEX, MUTEX, MUTEX", "WRITE, WRITE, WRITE", "WRITE, WRITE, READ",
			"SEMAPHORE, SEMAPHORE, SEMAPHORE" })
	void aWaiterInTheMiddleWhoseSessionExpiresDoesNotHandTheLockOn(LockMode a, LockMode b, LockMode c)
			throws Exception {
		String path = this.manager.pathFor("orders", "42");
		try (CuratorFramework middleClient = ZooKeeperTestSupport.startClient(server.getConnectString());
				CuratorLockManager middleManager = new CuratorLockManager(middleClient, this.basePath,
						Duration.ofSeconds(30));
				BackgroundHolder holder = BackgroundHolder.hold(this.manager, request(a, Duration.ofSeconds(30)))) {
			List<String> holderNodes = client.getChildren().forPath(path);
			CompletableFuture<Boolean> middle = acquireLater(middleManager, request(b, Duration.ofSeconds(30)));
			awaitNodes(path, 2);
			List<String> middleNodes = new ArrayList<>(client.getChildren().forPath(path));
			middleNodes.removeAll(holderNodes);
			CompletableFuture<Boolean> last = acquireLater(this.manager, request(c, Duration.ofSeconds(30)));
			awaitNodes(path, 3);
			ZooKeeperSessions.expire(middleClient);
			// the middle waiter's node goes with its session; it queues again, behind the last one
			await().atMost(Duration.ofSeconds(30))
				.until(() -> client.getChildren().forPath(path).stream().noneMatch(middleNodes::contains));
			await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> !last.isDone());
			holder.close();
			assertThat(last.get(30, TimeUnit.SECONDS)).isTrue();
			assertThat(middle.get(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	/**
	 * A reader behind exactly one writer, and a writer behind exactly one node, hold
	 * when it goes without reading the queue again.
	 */
	@ParameterizedTest(name = "{0} holds, {1} waits")
	@CsvSource({ "WRITE, READ", "READ, WRITE", "MUTEX, MUTEX" })
	void aWaiterBehindOneNodeHoldsOnItsDeletionWithoutReadingTheQueue(LockMode a, LockMode b) throws Exception {
		String path = this.manager.pathFor("orders", "42");
		NoHerdTests.ChildrenReaders readers = new NoHerdTests.ChildrenReaders();
		client.getZookeeperClient().setTracerDriver(readers);
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, request(a, Duration.ofSeconds(30)))) {
			CompletableFuture<Boolean> waiter = acquireLater(this.manager, request(b, Duration.ofSeconds(30)));
			awaitNodes(path, 2);
			await().atMost(Duration.ofSeconds(10)).until(() -> this.manager.getRegistry()
				.snapshot()
				.stream()
				.anyMatch((info) -> info.state() == LockState.WAITING));
			// the waiter's read and watch are answered in order before this read, sent later on the same session
			client.getChildren().forPath(path);
			readers.start(this.basePath);
			holder.close();
			assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
			assertThat(readers.childrenReads()).as("queue reads after the release").isZero();
		}
		finally {
			client.getZookeeperClient().setTracerDriver(new DefaultTracerDriver());
		}
	}

	@Test
	void controlAWaiterBehindTwoNodesReadsTheQueueWhenTheFirstGoes() throws Exception {
		String path = this.manager.pathFor("orders", "42");
		NoHerdTests.ChildrenReaders readers = new NoHerdTests.ChildrenReaders();
		client.getZookeeperClient().setTracerDriver(readers);
		try (BackgroundHolder holder = BackgroundHolder.hold(this.manager, request(LockMode.WRITE,
				Duration.ofSeconds(30)))) {
			CompletableFuture<Boolean> middle = acquireLater(this.manager, request(LockMode.WRITE, SHORT));
			awaitNodes(path, 2);
			CompletableFuture<Boolean> last = acquireLater(this.manager,
					request(LockMode.READ, Duration.ofSeconds(30)));
			awaitNodes(path, 3);
			client.getChildren().forPath(path);
			readers.start(this.basePath);
			holder.close();
			// the reader saw two writers ahead: the first one's deletion makes it read the queue
			await().atMost(Duration.ofSeconds(10)).until(() -> readers.childrenReads() >= 1);
			assertThat(middle.get(30, TimeUnit.SECONDS)).isTrue();
			assertThat(last.get(30, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			client.getZookeeperClient().setTracerDriver(new DefaultTracerDriver());
		}
	}

	/**
	 * A holder that downgrades places its READ node at its write node's sequence,
	 * ahead of a writer that has already read the queue: the write node's deletion
	 * must not hand that writer the lock while the READ is held.
	 */
	@ParameterizedTest(name = "{0} writer")
	@EnumSource(LockApi.class)
	void aWriterBehindAHolderThatDowngradesWaitsForTheRead(LockApi api) throws Exception {
		DowngradeRounds rounds = new DowngradeRounds(this.manager, this.manager, this.asyncManager, client);
		for (int i = 0; i < 10; i++) {
			rounds.round(api, "42");
		}
		assertThat(rounds.overlaps()).isZero();
		assertThat(ephemeralNodes()).isEmpty();
	}

	/**
	 * A READ taken and released inside a WRITE leaves the write node touched: a
	 * writer behind it no longer takes its deletion as a hand-off, but reads the
	 * queue and still gets the lock. A reader behind it holds beside the READ.
	 */
	@ParameterizedTest(name = "{0} waits")
	@CsvSource({ "WRITE", "READ" })
	void aWaiterBehindAWriterThatTookAndReleasedAReadStillGetsTheLock(LockMode waiting) throws Exception {
		String path = this.manager.pathFor("orders", "42");
		LockHandle write = this.manager.acquire(request(LockMode.WRITE, Duration.ofSeconds(30)));
		try {
			this.manager.acquire(request(LockMode.READ, Duration.ofSeconds(30))).close();
			CompletableFuture<Boolean> waiter = acquireLater(this.manager, request(waiting, Duration.ofSeconds(30)));
			awaitNodes(path, 2);
			await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> !waiter.isDone());
			write.close();
			assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			write.close();
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	/**
	 * Re-entering READ while downgraded adds no node, and releasing the inner READ
	 * does not hand the lock to the writer: only the outermost release does.
	 */
	@Test
	void aWriterBehindAHolderThatReentersItsDowngradedReadWaitsForTheOutermostRelease() throws Exception {
		String path = this.manager.pathFor("orders", "42");
		LockHandle write = this.manager.acquire(request(LockMode.WRITE, Duration.ofSeconds(30)));
		CompletableFuture<Boolean> writer = acquireLater(this.manager, request(LockMode.WRITE, Duration.ofSeconds(30)));
		awaitNodes(path, 2);
		try (LockHandle read = this.manager.acquire(request(LockMode.READ, Duration.ofSeconds(30)))) {
			write.close();
			this.manager.acquire(request(LockMode.READ, Duration.ofSeconds(30))).close();
			assertThat(client.getChildren().forPath(path)).hasSize(2);
			await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> !writer.isDone());
			assertThat(read.isHeld()).isTrue();
		}
		assertThat(writer.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void aReaderBehindAHolderThatDowngradesHoldsBesideItsRead() throws Exception {
		String path = this.manager.pathFor("orders", "42");
		LockHandle write = this.manager.acquire(request(LockMode.WRITE, Duration.ofSeconds(30)));
		CompletableFuture<Boolean> reader = acquireLater(this.manager, request(LockMode.READ, Duration.ofSeconds(30)));
		awaitNodes(path, 2);
		try (LockHandle read = this.manager.acquire(request(LockMode.READ, Duration.ofSeconds(30)))) {
			assertThat(read.isAcquired()).isTrue();
			write.close();
			// readers share: the reader holds while the downgraded READ is still held
			assertThat(reader.get(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	private void awaitNodes(String path, int count) {
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			try {
				return client.getChildren().forPath(path).size() == count;
			}
			catch (org.apache.zookeeper.KeeperException.NoNodeException ex) {
				return false;
			}
		});
	}

	private static LockRequest request(LockMode mode, Duration timeout) {
		LockRequest.Builder builder = LockRequest.named("orders").keys("42").mode(mode).timeout(timeout);
		return builder.build();
	}

	// A thread per waiter, each acquiring and releasing at once
	private static CompletableFuture<Boolean> acquireLater(LockManager manager, LockRequest request) {
		CompletableFuture<Boolean> result = new CompletableFuture<>();
		new Thread(() -> {
			try (LockHandle handle = manager.acquire(request)) {
				result.complete(handle.isAcquired());
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		}, "waiter-" + request.mode()).start();
		return result;
	}

}
