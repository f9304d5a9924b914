package dev.zklock.core;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.DefaultTracerDriver;
import org.apache.zookeeper.data.Stat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.LockHandle;
import dev.zklock.LockLossReason;
import dev.zklock.LockLostException;
import dev.zklock.LockRequest;
import dev.zklock.LockState;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.FourLetterWords;
import dev.zklock.testsupport.ZooKeeperSessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Holds notice a pause of this process at once, against a real ZooKeeper server.
 * The detector runs on a clock the test moves, so a pause is exact and instant;
 * the confirmation that follows is a real round trip.
 */
class PauseAwareHoldTests extends AbstractZooKeeperTests {

	private static final Pattern RECEIVED = Pattern.compile("recved=(\\d+)");

	private final AtomicLong clock = new AtomicLong();

	private final List<LockLossReason> losses = new CopyOnWriteArrayList<>();

	private PauseDetector detector;

	@BeforeEach
	void detectPauses() {
		// not started: the test ticks it; a gap of more than a second counts as a pause
		this.detector = new PauseDetector(Duration.ofMillis(10), Duration.ofSeconds(1), this.clock::get);
		this.manager.setPauseDetector(this.detector);
		this.manager.addLockLossListener((lock, reason) -> this.losses.add(reason));
	}

	@AfterEach
	void stopDetecting() {
		this.detector.close();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void aPauseLongerThanTheSafeSilencePutsTheHoldInDoubtAtOnceUntilZooKeeperConfirmsIt(LockMode mode)
			throws Exception {
		try (LockHandle handle = this.manager.acquire(request(mode))) {
			assertThat(handle.isHeld()).isTrue();
			// frozen for the whole session timeout (15 s): the ticker has not run since
			this.clock.addAndGet(TimeUnit.SECONDS.toNanos(15));
			assertThat(handle.isHeld()).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::assertHeld)
				.withMessageContaining("in doubt")
				.withMessageContaining("paused");
			// running again: the ticker counts the pause, and one round trip confirms the node
			this.detector.tick();
			await().atMost(Duration.ofSeconds(10)).until(handle::isHeld);
			assertThatNoException().isThrownBy(handle::assertHeld);
		}
		assertThat(this.losses).isEmpty();
		assertThat(ephemeralNodes()).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void aGrantAfterAPausePastTheSessionIsHeldAtItsGrant(LockMode mode) throws Exception {
		grantAfterAPause(LockRequest.named("paused").keys("1").mode(mode).build());
	}

	@Test
	void aMultiKeyGrantAfterAPausePastTheSessionIsHeldAtItsGrant() throws Exception {
		grantAfterAPause(LockRequest.named("paused").keys("1", "2", "3").build());
	}

	// A waiter frozen past its session joins the queue again with a node of its new session and is granted later
	private void grantAfterAPause(LockRequest request) throws Exception {
		CuratorFramework otherClient = ZooKeeperTestSupport.startClient(server.getConnectString());
		try (CuratorLockManager other = new CuratorLockManager(otherClient, this.basePath, Duration.ofSeconds(10))) {
			// a READ waits only behind a WRITE
			LockRequest blocking = LockRequest.named(request.name())
				.keys(request.keys())
				.mode((request.mode() == LockMode.READ) ? LockMode.WRITE : request.mode())
				.build();
			LockHandle holder = other.acquire(blocking);
			try {
				expectGrantAfterAPause(request, holder);
			}
			finally {
				// a failed step must not leave the holder open as this thread's LockContext for later tests
				holder.close();
			}
		}
		finally {
			otherClient.close();
		}
		assertThat(this.losses).isEmpty();
		assertThat(ephemeralNodes()).isEmpty();
	}

	// the waiter, frozen past its session, joins the queue again in its new session and is granted at the close
	private void expectGrantAfterAPause(LockRequest request, LockHandle holder) throws Exception {
		CompletableFuture<List<Object>> atGrant = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			try (LockHandle handle = this.manager.acquire(request.withTimeout(Duration.ofSeconds(30)))) {
				boolean held = handle.isHeld();
				Throwable assertion = catchThrowable(handle::assertHeld);
				atGrant.complete(Arrays.asList(handle.isAcquired(), held, assertion));
			}
			catch (Throwable ex) {
				atGrant.completeExceptionally(ex);
			}
		}, "paused-waiter");
		waiter.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.manager.getRegistry().waitingCount() == 1);
		// frozen for the whole session timeout: the session ends meanwhile
		this.clock.addAndGet(TimeUnit.SECONDS.toNanos(15));
		long oldSession = ZooKeeperSessions.expire(client);
		// running again: the ticker counts the pause, and the waiter joins the queue again in its new session
		// (on its first key: the holder has them all)
		this.detector.tick();
		await().atMost(Duration.ofSeconds(10)).until(() -> ZooKeeperSessions.sessionId(client) != oldSession
				&& ownedBy(ZooKeeperSessions.sessionId(client)) == 1);
		assertThat(atGrant).isNotDone();
		holder.close();
		assertThat(atGrant.get(10, TimeUnit.SECONDS)).as("acquired, isHeld() and assertHeld() at the grant")
			.containsExactly(true, true, null);
		waiter.join(10_000);
	}

	// queue nodes under the base path owned by a session
	private long ownedBy(long session) throws Exception {
		long owned = 0;
		for (String path : queueNodes()) {
			Stat stat = client.checkExists().forPath(path);
			if (stat != null && stat.getEphemeralOwner() == session) {
				owned++;
			}
		}
		return owned;
	}

	@Test
	void aPauseThatEndedBeforeTheCheckIsNoticedToo() throws Exception {
		try (LockHandle handle = this.manager.acquire(request(LockMode.MUTEX))) {
			this.clock.addAndGet(TimeUnit.SECONDS.toNanos(2));
			// the ticker ran first after the pause: the silence is over, the pause is counted
			this.detector.tick();
			assertThat(this.detector.silentLongerThan(TimeUnit.MILLISECONDS.toNanos(1))).isFalse();
			assertThat(handle.isHeld()).isFalse();
			// the check queued the confirmation; the ticker, ticking on, sends it
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				this.detector.tick();
				return handle.isHeld();
			});
		}
	}

	@Test
	void aPauseTheTickerHasNotCountedYetIsNoticedByTheCheckItself() throws Exception {
		try (LockHandle handle = this.manager.acquire(request(LockMode.MUTEX))) {
			// past the pause threshold (1 s), short of the safe silence; the ticker has not run since
			this.clock.addAndGet(TimeUnit.SECONDS.toNanos(2));
			assertThat(handle.isHeld()).isFalse();
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				this.detector.tick();
				return handle.isHeld();
			});
		}
	}

	@Test
	void aPauseTheTickerHasNotCountedYetPassesNothingLocally() throws Exception {
		LockRequest hot = LockRequest.named("hot-pause").keys("k").localHandoff(true)
			.timeout(Duration.ofSeconds(30)).build();
		CompletableFuture<Long> next = new CompletableFuture<>();
		long frozen;
		try (LockHandle holder = this.manager.acquire(hot)) {
			frozen = holder.fencingToken();
			Thread waiter = new Thread(() -> {
				try (LockHandle handle = this.manager.acquire(hot)) {
					next.complete(handle.fencingToken());
				}
				catch (Throwable ex) {
					next.completeExceptionally(ex);
				}
			}, "local-waiter");
			waiter.start();
			await().atMost(Duration.ofSeconds(10)).until(() -> this.manager.getRegistry().waitingCount() == 1);
			// past the pause threshold (1 s), short of the safe silence; the ticker has not run since
			this.clock.addAndGet(TimeUnit.SECONDS.toNanos(2));
		}
		// the release saw the hold in doubt: no pass under the frozen tenure's token, the waiter queued in ZooKeeper
		long token = await().atMost(Duration.ofSeconds(10)).until(() -> {
			this.detector.tick();
			return next.isDone() ? next.get() : null;
		}, (value) -> value != null);
		assertThat(token).isGreaterThan(frozen);
		assertThat(this.manager.getLocalHandoffs().localHandoffs()).isZero();
		await().atMost(Duration.ofSeconds(10)).until(() -> ephemeralNodes().isEmpty());
	}

	@Test
	void aShortSilenceIsNoPause() throws Exception {
		try (LockHandle handle = this.manager.acquire(request(LockMode.WRITE))) {
			this.clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(500));
			assertThat(handle.isHeld()).isTrue();
			this.detector.tick();
			assertThat(handle.isHeld()).isTrue();
		}
	}

	@Test
	void aNodeGoneDuringThePauseIsLost() throws Exception {
		LockHandle handle = this.manager.acquire(request(LockMode.MUTEX));
		client.delete().forPath(handle.nodePath());
		this.clock.addAndGet(TimeUnit.SECONDS.toNanos(15));
		assertThat(handle.isHeld()).isFalse();
		// the check only queued the confirmation; the ticker, running again, sends it
		this.detector.tick();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.manager.getRegistry().count(LockState.LOST) == 1);
		// announced once, by whichever look came first: the confirmation after the pause (NODE_DELETED), or the
		// revocation watch, armed 50 ms after the grant by the clock of the machine, which a loaded machine can
		// let pass between the grant and the delete above (REVOKED: a deletion seen while connected)
		assertThat(this.losses).singleElement().isIn(LockLossReason.NODE_DELETED, LockLossReason.REVOKED);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::assertHeld)
			.withMessageContaining("was lost (" + this.losses.get(0) + ")");
		handle.close();
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
	}

	@Test
	void asyncHoldsNoticeThePauseToo() throws Exception {
		AsyncLockHandle handle = this.asyncManager.acquire(request(LockMode.READ)).get(10, TimeUnit.SECONDS);
		assertThat(handle.isHeld()).isTrue();
		this.clock.addAndGet(TimeUnit.SECONDS.toNanos(15));
		assertThat(handle.isHeld()).isFalse();
		this.detector.tick();
		await().atMost(Duration.ofSeconds(10)).until(handle::isHeld);
		handle.release().get(10, TimeUnit.SECONDS);
	}

	@Test
	void checksWhileNothingWasSilentSendNothingToZooKeeper() throws Exception {
		RoundTripTests.Operations operations = new RoundTripTests.Operations();
		client.getZookeeperClient().setTracerDriver(operations);
		try (LockHandle handle = this.manager.acquire(request(LockMode.MUTEX))) {
			// the hold's revocation watch is armed once it has lasted 50 ms: that getData comes before the counts
			operations.start(this.basePath);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> operations.seen().stream().anyMatch((name) -> name.contains("GetData")));
			long session = client.getZookeeperClient().getZooKeeper().getSessionId();
			long pingAfterNanos = TimeUnit.MILLISECONDS
				.toNanos(client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs() / 3);
			// a request just sent: the client sends no ping before a third of the session timeout without one
			client.checkExists().forPath(this.basePath);
			long start = System.nanoTime();
			long packetsBefore = packetsReceived(session);
			operations.start(this.basePath);
			for (int i = 0; i < 10_000; i++) {
				// the ticker ticks on time: nothing is silent
				this.clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(10));
				this.detector.tick();
				assertThat(handle.isHeld()).isTrue();
				handle.assertHeld();
			}
			List<String> quietOperations = operations.stop();
			long quietPackets = packetsReceived(session) - packetsBefore;
			assertThat(System.nanoTime() - start).as("checks done before the client's next ping")
				.isLessThan(pingAfterNanos);
			// control: after a pause the same counts show the one confirmation round trip
			operations.start(this.basePath);
			this.clock.addAndGet(TimeUnit.SECONDS.toNanos(15));
			assertThat(handle.isHeld()).isFalse();
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				this.detector.tick();
				return handle.isHeld();
			});
			List<String> confirmation = operations.stop();
			long confirmationPackets = packetsReceived(session) - packetsBefore - quietPackets;
			assertThat(quietOperations).as("Curator operations of 20,000 checks").isEmpty();
			assertThat(quietPackets).as("requests the server received during 20,000 checks").isZero();
			assertThat(confirmation).hasSize(2).anyMatch((name) -> name.contains("Sync"))
				.anyMatch((name) -> name.contains("Exists"));
			assertThat(confirmationPackets).isGreaterThanOrEqualTo(2);
		}
		finally {
			client.getZookeeperClient().setTracerDriver(new DefaultTracerDriver());
		}
	}

	@Test
	void controlWithoutADetectorTheHoldTrustsItselfThroughThePause() throws Exception {
		this.manager.setPauseDetector(null);
		try (LockHandle handle = this.manager.acquire(request(LockMode.MUTEX))) {
			this.clock.addAndGet(TimeUnit.SECONDS.toNanos(15));
			assertThat(handle.isHeld()).isTrue();
		}
	}

	// what the server received from one session, pings included, as the cons four-letter word counts it
	private static long packetsReceived(long session) throws IOException {
		String sid = "sid=0x" + Long.toHexString(session) + ",";
		for (String line : FourLetterWords.send(server.getPort(), "cons").split("\n")) {
			if (line.contains(sid)) {
				Matcher matcher = RECEIVED.matcher(line);
				if (matcher.find()) {
					return Long.parseLong(matcher.group(1));
				}
			}
		}
		throw new IllegalStateException("The server lists no connection of session 0x" + Long.toHexString(session));
	}

	private static LockRequest request(LockMode mode) {
		return LockRequest.named("paused").keys("1").mode(mode).permits(2).build();
	}

}
