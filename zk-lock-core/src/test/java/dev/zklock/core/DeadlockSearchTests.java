package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
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

import dev.zklock.LockDeadlockException;
import dev.zklock.LockHandle;
import dev.zklock.LockManager;
import dev.zklock.LockRequest;
import dev.zklock.core.LockRing.Crossing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The search for cycles (#42, step 5): once the waits of a cycle are published,
 * each member's instance finds the cycle and names the same victim, the one that
 * then fails ({@link DeadlockTests} times it); a chain or waits in one global
 * order are no cycle. The {@link DeadlockDetector} reports at DEBUG, which is how
 * these tests see it.
 */
class DeadlockSearchTests extends AbstractZooKeeperTests {

	private static final Duration AFTER = Duration.ofMillis(200);

	private static final Duration WAIT = Duration.ofSeconds(30);

	// far beyond detection: the cycle is ended by its victim, not by a timeout
	private static final Duration INNER_TIMEOUT = Duration.ofSeconds(8);

	private final ListAppender<ILoggingEvent> log = new ListAppender<>();

	private final Logger detectorLog = (Logger) LoggerFactory.getLogger(DeadlockDetector.class);

	private Level levelBefore;

	private final ExecutorService threads = Executors.newCachedThreadPool();

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
	void twoThreadsOfOneManagerReportTheSameVictimAsTheOneThatFails() throws Exception {
		LockRing ring = new LockRing(List.of(this.manager, this.manager), List.of("x", "y"), Crossing.MUTEX,
				INNER_TIMEOUT);
		ring.awaitFormed();
		String victim = victimOf(ring.outcomes());
		assertThat(victimReports()).isNotEmpty().allSatisfy((report) -> assertThat(report)
			.contains(": the wait of thread '" + victim + "' (session")
			.contains("thread 'holds-x' waits for 'y' key 'k' (MUTEX)")
			.contains("thread 'holds-y' waits for 'x' key 'k' (MUTEX)"));
		assertThat(memberReports()).allSatisfy((report) -> assertThat(report)
			.doesNotContain(": the wait of thread '" + victim + "' (session")
			.contains("its victim is the wait of thread '" + victim + "'"));
		assertThat(ephemeralNodes()).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(Crossing.class)
	void twoInstancesCrossingReportTheSameVictimOnBoth(Crossing crossing) throws Exception {
		try (CuratorFramework otherClient = ZooKeeperTestSupport.startClient(server.getConnectString());
				CuratorLockManager other = new CuratorLockManager(otherClient, this.basePath, WAIT)) {
			other.setDeadlockDetection(new DeadlockDetectionSettings(true, AFTER, 10, "orders"));
			LockRing ring = new LockRing(List.of(this.manager, other), List.of("x", "y"), crossing, INNER_TIMEOUT);
			ring.awaitFormed();
			String victim = victimOf(ring.outcomes());
			// each instance reports its own wait: the victim's as the victim, the other's naming the same victim
			assertThat(victimReports()).isNotEmpty().allSatisfy((report) -> assertThat(report)
				.contains(": the wait of thread '" + victim + "' (session"));
			assertThat(memberReports()).allSatisfy((report) -> assertThat(report)
				.contains("its victim is the wait of thread '" + victim + "'"));
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

	// The thread whose inner wait failed as the victim; every other one was granted
	private static String victimOf(List<LockRing.Outcome> outcomes) {
		assertThat(outcomes).filteredOn((outcome) -> outcome.failure() != null).singleElement()
			.satisfies((outcome) -> assertThat(outcome.failure()).isInstanceOf(LockDeadlockException.class));
		return outcomes.stream().filter((outcome) -> outcome.failure() != null).findFirst().orElseThrow().thread();
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

}
