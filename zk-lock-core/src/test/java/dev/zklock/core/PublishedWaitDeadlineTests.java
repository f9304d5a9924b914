package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.testsupport.ZooKeeperProxy;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A wait published past its mark (#42) still ends by its deadline while ZooKeeper
 * is silent: nobody waits for its record's delete. The waiters use local hand-off,
 * so that the record is the only node of theirs a give-up deletes, and hold an
 * outer lock, so that they are published. ZooKeeper falls silent (a proxy holds the
 * traffic back, the connection stays up, as in a partition) once every record is
 * listed; Curator still counts the connection as up at the deadline, which is when
 * a wait for a delete would cost {@link CleanupWait#GRACE_NANOS}. The record still
 * goes: its delete goes through once ZooKeeper answers again, or the record goes
 * with its session if that ends first.
 */
class PublishedWaitDeadlineTests extends AbstractZooKeeperTests {

	private static final Duration AFTER = Duration.ofMillis(200);

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	// as UnreachableZooKeeperTests allows
	private static final Duration SLACK = Duration.ofMillis(250);

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final int WAITERS = 4;

	// the server ends the session within the test while the proxy is silent; the read timeout (two thirds of it) still
	// outlasts the waits, so Curator counts the connection as up at their deadline
	private static final int SESSION_MS = 6_000;

	@Test
	void timedWaitsEndByTheirDeadlineWhileZooKeeperIsSilentAndTheirRecordsGoOnceItAnswers() throws Exception {
		whileSilent((proxy, waiterClient) -> {
			// held back with the rest: the callers did not wait for it
			assertThat(records()).as("records while ZooKeeper is silent").hasSize(WAITERS);
			proxy.pass();
			await().atMost(WAIT).until(() -> records().isEmpty());
		});
	}

	@Test
	void timedWaitsEndByTheirDeadlineWhileZooKeeperIsSilentAndTheirRecordsGoWithTheirSession() throws Exception {
		whileSilent((proxy, waiterClient) -> {
			long session = ZooKeeperSessions.sessionId(waiterClient);
			// still silent: the server ends the session after its timeout, and the records go with it
			await().atMost(WAIT).until(() -> records().isEmpty());
			assertThat(proxy.isBlackholed()).isTrue();
			proxy.pass();
			await().atMost(WAIT).until(() -> waiterClient.getZookeeperClient().isConnected()
					&& ZooKeeperSessions.sessionId(waiterClient) != session);
		});
	}

	// Waiters of a client behind a proxy wait for a key held elsewhere; once silenced their waits end by the deadline,
	// then `then` goes on with ZooKeeper still silent; no node is left at the end
	private void whileSilent(Silenced then) throws Exception {
		try (ZooKeeperProxy proxy = ZooKeeperProxy.start("published", List.of(server.getPort()));
				CuratorFramework waiterClient = ZooKeeperTestSupport.startClient(proxy.connectString(), SESSION_MS);
				CuratorLockManager waiters = new CuratorLockManager(waiterClient, this.basePath, WAIT)) {
			waiters.setDeadlockDetection(new DeadlockDetectionSettings(true, AFTER, 10, null));
			try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(),
					LockRequest.named("stock").keys("7").timeout(WAIT).build())) {
				endByTheDeadline(waiters, proxy);
				then.check(proxy, waiterClient);
			}
			await().atMost(WAIT).until(() -> ephemeralNodes().isEmpty());
		}
	}

	/**
	 * What a test checks once the waits ended, ZooKeeper still silent.
	 */
	@FunctionalInterface
	private interface Silenced {

		void check(ZooKeeperProxy proxy, CuratorFramework waiterClient) throws Exception;

	}

	// Published waiters behind the holder; silence once every record is listed; every wait ends by its deadline
	private void endByTheDeadline(CuratorLockManager waiters, ZooKeeperProxy proxy) throws Exception {
		List<CompletableFuture<Duration>> elapsed = new ArrayList<>();
		for (int i = 0; i < WAITERS; i++) {
			elapsed.add(waitInside(waiters, "waiter-" + i, String.valueOf(i)));
		}
		await().atMost(TIMEOUT).until(() -> records().size() == WAITERS);
		proxy.blackhole();
		List<Duration> ended = new ArrayList<>();
		for (CompletableFuture<Duration> wait : elapsed) {
			ended.add(wait.get(30, TimeUnit.SECONDS));
		}
		assertThat(ended).allSatisfy((wait) -> assertThat(wait).isLessThanOrEqualTo(TIMEOUT.plus(SLACK)));
		// ZooKeeper answers no delete now: a caller that waited for one would end no sooner than the grace
		assertThat(ended.stream().min(Comparator.naturalOrder()).orElseThrow())
			.isLessThan(TIMEOUT.plusNanos(CleanupWait.GRACE_NANOS));
	}

	// A thread that holds an outer lock and waits for the held key: how long the wait took, none granted
	private static CompletableFuture<Duration> waitInside(CuratorLockManager waiters, String thread, String key) {
		CompletableFuture<Duration> elapsed = new CompletableFuture<>();
		new Thread(() -> {
			try (LockHandle outer = waiters.acquire(LockRequest.named("orders").keys(key).timeout(WAIT).build())) {
				long start = System.nanoTime();
				try (LockHandle handle = waiters.acquire(LockRequest.named("stock")
					.keys("7")
					.localHandoff(true)
					.timeout(TIMEOUT)
					.build())) {
					Duration took = Duration.ofNanos(System.nanoTime() - start);
					if (handle.isAcquired()) {
						elapsed.completeExceptionally(new AssertionError(thread + " was granted a held key"));
					}
					elapsed.complete(took);
				}
			}
			catch (Throwable ex) {
				elapsed.completeExceptionally(ex);
			}
		}, thread).start();
		return elapsed;
	}

	private List<String> records() throws Exception {
		String waits = this.basePath + "/" + LockPaths.WAITS;
		return (client.checkExists().forPath(waits) != null) ? client.getChildren().forPath(waits) : List.of();
	}

}
