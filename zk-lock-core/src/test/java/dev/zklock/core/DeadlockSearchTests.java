package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import dev.zklock.LockHandle;
import dev.zklock.LockManager;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The search for cycles (#42, step 5): once the waits of a cycle are published,
 * each member's instance finds the cycle within {@code after} and a round, and
 * names the same victim, the newest wait; a chain or waits in one global order
 * are no cycle. No wait is ended yet: the members time out as before. The
 * {@link DeadlockDetector} reports at DEBUG, which is how these tests see it.
 */
class DeadlockSearchTests extends AbstractZooKeeperTests {

	private static final Duration AFTER = Duration.ofMillis(200);

	private static final Duration WAIT = Duration.ofSeconds(30);

	// the inner waits of a cycle end by timeout, long after it is found
	private static final Duration INNER_TIMEOUT = Duration.ofSeconds(4);

	private final ListAppender<ILoggingEvent> log = new ListAppender<>();

	private final Logger detectorLog = (Logger) LoggerFactory.getLogger(DeadlockDetector.class);

	private Level levelBefore;

	private final ExecutorService threads = Executors.newCachedThreadPool();

	/** The pairs of a two-wait cycle. */
	enum Crossing {

		MUTEX(LockMode.MUTEX, false, LockMode.MUTEX), WRITE(LockMode.WRITE, false, LockMode.WRITE),
		READ_IN_WRITE(LockMode.WRITE, true, LockMode.WRITE);

		private final LockMode outer;

		private final boolean readInside;

		private final LockMode inner;

		Crossing(LockMode outer, boolean readInside, LockMode inner) {
			this.outer = outer;
			this.readInside = readInside;
			this.inner = inner;
		}

	}

	@BeforeEach
	void captureReports() {
		this.manager.setDeadlockDetection(new DeadlockDetectionSettings(true, AFTER, 10, "orders"));
		this.log.start();
		this.levelBefore = this.detectorLog.getLevel();
		this.detectorLog.setLevel(Level.DEBUG);
		this.detectorLog.addAppender(this.log);
	}

	@AfterEach
	void stopCapturing() {
		this.detectorLog.detachAppender(this.log);
		this.detectorLog.setLevel(this.levelBefore);
		this.threads.shutdownNow();
	}

	@Test
	void twoThreadsOfOneManagerInOppositeOrdersAreFoundWithTheNewestWaitAsVictim() throws Exception {
		Crossed crossed = new Crossed(this.manager, this.manager, Crossing.MUTEX);
		long formed = crossed.awaitBothWaiting();
		await().atMost(AFTER.plusSeconds(1)).until(() -> !victimReports().isEmpty());
		assertThat(Duration.ofNanos(System.nanoTime() - formed)).isLessThanOrEqualTo(AFTER.plusSeconds(1));
		String newest = newestRecordThread(client);
		assertThat(victimReports()).allSatisfy((report) -> assertThat(report)
			.contains(": the wait of thread '" + newest + "' (session")
			.contains("thread 'first' waits for 'y' key 'k' (MUTEX)")
			.contains("thread 'second' waits for 'x' key 'k' (MUTEX)"));
		await().atMost(WAIT).until(() -> !memberReports().isEmpty());
		assertThat(memberReports()).allSatisfy((report) -> assertThat(report)
			.doesNotContain(": the wait of thread '" + newest + "' (session")
			.contains("its victim is the wait of thread '" + newest + "'"));
		// no verdict yet: the inner waits run out; the first to do so lets the other in, maybe before its deadline
		assertThat(crossed.innerResults()).contains(false);
		assertThat(ephemeralNodes()).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(Crossing.class)
	void twoInstancesCrossingAreFoundByBothWithOneVictim(Crossing crossing) throws Exception {
		try (CuratorFramework otherClient = ZooKeeperTestSupport.startClient(server.getConnectString());
				CuratorLockManager other = new CuratorLockManager(otherClient, this.basePath, WAIT)) {
			other.setDeadlockDetection(new DeadlockDetectionSettings(true, AFTER, 10, "orders"));
			Crossed crossed = new Crossed(this.manager, other, crossing);
			long formed = crossed.awaitBothWaiting();
			// each instance reports its own wait: one as the victim, the other as a member
			await().atMost(AFTER.plusSeconds(1)).until(() -> !victimReports().isEmpty() && !memberReports().isEmpty());
			assertThat(Duration.ofNanos(System.nanoTime() - formed)).isLessThanOrEqualTo(AFTER.plusSeconds(1));
			String newest = newestRecordThread(client);
			assertThat(victimReports()).allSatisfy((report) -> assertThat(report)
				.contains(": the wait of thread '" + newest + "' (session"));
			assertThat(memberReports()).allSatisfy((report) -> assertThat(report)
				.contains("its victim is the wait of thread '" + newest + "'"));
			long sessionA = client.getZookeeperClient().getZooKeeper().getSessionId();
			long sessionB = otherClient.getZookeeperClient().getZooKeeper().getSessionId();
			// two instances of one JVM: the report tells them apart by session
			assertThat(victimReports().get(0)).contains("session 0x" + Long.toHexString(sessionA))
				.contains("session 0x" + Long.toHexString(sessionB));
			assertThat(crossed.innerResults()).contains(false);
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void aChainBehindARunningHolderIsNoCycle() throws Exception {
		LockRequest c = LockRequest.named("c").keys("k").timeout(WAIT).build();
		try (BackgroundHolder holder = BackgroundHolder.hold(otherManager(), c)) {
			CountDownLatch holdsB = new CountDownLatch(1);
			CompletableFuture<Boolean> middle = CompletableFuture.supplyAsync(() -> {
				try (LockHandle b = this.manager.acquire(LockRequest.named("b").keys("k").timeout(WAIT).build())) {
					holdsB.countDown();
					return nestedIn(this.manager, c);
				}
			}, this.threads);
			assertThat(holdsB.await(30, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<Boolean> last = CompletableFuture
				.supplyAsync(() -> nestedIn(this.manager, LockRequest.named("b").keys("k").timeout(WAIT).build()),
						this.threads);
			await().atMost(WAIT).until(() -> marks() == 2);
			// several rounds pass: each finds the chain, none a cycle
			await().during(AFTER.multipliedBy(6)).atMost(WAIT).until(() -> cycleReports().isEmpty());
			holder.close();
			assertThat(middle.get(30, TimeUnit.SECONDS)).isTrue();
			assertThat(last.get(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(cycleReports()).isEmpty();
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void nestedWaitsInOneGlobalOrderAreNoCycle() throws Exception {
		otherManager().setDeadlockDetection(new DeadlockDetectionSettings(true, AFTER, 10, "orders"));
		List<CompletableFuture<Integer>> workers = new ArrayList<>();
		for (int w = 0; w < 4; w++) {
			LockManager manager = (w % 2 == 0) ? this.manager : otherManager();
			workers.add(CompletableFuture.supplyAsync(() -> inGlobalOrder(manager, 8), this.threads));
		}
		for (CompletableFuture<Integer> worker : workers) {
			assertThat(worker.get(60, TimeUnit.SECONDS)).isEqualTo(8);
		}
		assertThat(marks()).as("waits published, so rounds ran").isPositive();
		assertThat(cycleReports()).isEmpty();
		assertThat(ephemeralNodes()).isEmpty();
	}

	// Takes "g1" then "g2", holding both briefly, again and again; how many rounds got both
	private static int inGlobalOrder(LockManager manager, int rounds) {
		int acquired = 0;
		for (int i = 0; i < rounds; i++) {
			try (LockHandle first = manager.acquire(LockRequest.named("g1").keys("k").timeout(WAIT).build());
					LockHandle second = manager.acquire(LockRequest.named("g2").keys("k").timeout(WAIT).build())) {
				if (first.isAcquired() && second.isAcquired()) {
					acquired++;
				}
				pause(ThreadLocalRandom.current().nextInt(100, 250));
			}
		}
		return acquired;
	}

	private static boolean nestedIn(LockManager manager, LockRequest request) {
		try (LockHandle handle = manager.acquire(request)) {
			return handle.isAcquired();
		}
	}

	// Stands for work done under a lock
	private static void pause(long millis) {
		CountDownLatch never = new CountDownLatch(1);
		try {
			never.await(millis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	// The thread named in the newest record under #waits: the victim every member must agree on
	private String newestRecordThread(CuratorFramework reader) throws Exception {
		String waits = this.basePath + "/" + LockPaths.WAITS;
		List<WaitForGraph.Wait> records = new ArrayList<>();
		for (String child : reader.getChildren().forPath(waits)) {
			Stat stat = new Stat();
			byte[] data = reader.getData().storingStatIn(stat).forPath(waits + "/" + child);
			records.add(new WaitForGraph.Wait(child, stat.getCzxid(), WaitRecord.decode(data)));
		}
		assertThat(records).hasSize(2);
		return records.stream().max(Comparator.comparingLong(WaitForGraph.Wait::zxid)).orElseThrow()
			.record().party().thread();
	}

	private long marks() {
		return messages().stream().filter((message) -> message.contains("waited past the deadlock detection mark"))
			.count();
	}

	private List<String> cycleReports() {
		return messages().stream().filter((message) -> message.startsWith("Deadlock found")).toList();
	}

	private List<String> victimReports() {
		return cycleReports().stream().filter((message) -> message.contains("its victim, as the newest wait")).toList();
	}

	private List<String> memberReports() {
		return cycleReports().stream().filter((message) -> message.contains("a member; its victim is")).toList();
	}

	private List<String> messages() {
		return List.copyOf(this.log.list).stream().map(ILoggingEvent::getFormattedMessage).toList();
	}

	/**
	 * Two threads, named first and second, that each take one lock and then, once
	 * both hold theirs, ask for the other's: a cycle of two waits that lasts until
	 * their inner timeouts.
	 */
	private static final class Crossed {

		private final CountDownLatch bothHold = new CountDownLatch(2);

		private final List<CompletableFuture<Boolean>> inner = new ArrayList<>();

		Crossed(LockManager first, LockManager second, Crossing crossing) {
			this.inner.add(start(first, "first", "x", "y", crossing));
			this.inner.add(start(second, "second", "y", "x", crossing));
		}

		private CompletableFuture<Boolean> start(LockManager manager, String thread, String held, String wanted,
				Crossing crossing) {
			CompletableFuture<Boolean> result = new CompletableFuture<>();
			new Thread(() -> {
				try (LockHandle outer = manager.acquire(request(held, crossing.outer, WAIT));
						LockHandle read = crossing.readInside ? manager.acquire(request(held, LockMode.READ, WAIT))
								: null) {
					this.bothHold.countDown();
					this.bothHold.await();
					result.complete(nestedIn(manager, request(wanted, crossing.inner, INNER_TIMEOUT)));
				}
				catch (Throwable ex) {
					result.completeExceptionally(ex);
				}
			}, thread).start();
			return result;
		}

		private static LockRequest request(String name, LockMode mode, Duration timeout) {
			return LockRequest.named(name).keys("k").mode(mode).timeout(timeout).build();
		}

		// When both hold their first lock and ask for the second: the cycle forms
		long awaitBothWaiting() throws InterruptedException {
			assertThat(this.bothHold.await(30, TimeUnit.SECONDS)).isTrue();
			return System.nanoTime();
		}

		List<Boolean> innerResults() throws Exception {
			List<Boolean> results = new ArrayList<>();
			for (CompletableFuture<Boolean> result : this.inner) {
				results.add(result.get(30, TimeUnit.SECONDS));
			}
			return results;
		}

	}

}
