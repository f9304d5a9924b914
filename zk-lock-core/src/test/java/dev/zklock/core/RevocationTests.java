package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.utils.DefaultTracerDriver;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.LockHandle;
import dev.zklock.LockLossReason;
import dev.zklock.LockLostException;
import dev.zklock.LockRequest;
import dev.zklock.LockRevocation;
import dev.zklock.LockRevocationException;
import dev.zklock.LockRevocationException.Problem;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.LockMode;
import dev.zklock.testsupport.FreePorts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Revoking a lock against a real ZooKeeper server: the holder learns it at once
 * ({@code REVOKED}, interrupted when so configured, {@code isHeld()} false, a quiet
 * release), the next waiter gets it with a higher token, READ and SEMAPHORE lose
 * every holder or only the node named, and bad input removes nothing. A short
 * uncontended hold costs no operation for the revocation watch; a long one costs
 * one.
 */
class RevocationTests extends AbstractZooKeeperTests {

	private final List<LockLossReason> reasons = new CopyOnWriteArrayList<>();

	private final List<Long> lostAt = new CopyOnWriteArrayList<>();

	@BeforeEach
	void recordLosses() {
		this.manager.addLockLossListener((lock, reason) -> {
			this.lostAt.add(System.nanoTime());
			this.reasons.add(reason);
		});
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void aRevokedHolderLearnsAtOnceAndTheNextWaiterGetsAHigherToken(LockMode mode) throws Exception {
		this.manager.setInterruptOnLoss(true);
		Holder holder = hold(LockRequest.named("jobs").keys("k").mode(mode).permits(1).build(), "holder");
		// a READ holder lets readers in: a writer waits
		LockMode waiterMode = (mode == LockMode.READ) ? LockMode.WRITE : mode;
		CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
			try (LockHandle handle = otherManager()
				.acquire(LockRequest.named("jobs").keys("k").mode(waiterMode).permits(1).build())) {
				return handle.isAcquired() ? handle.fencingToken() : -1L;
			}
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> otherManager().getRegistry().waitingCount() == 1);
		// held past the watch's arming delay
		await().atMost(Duration.ofSeconds(10))
			.until(() -> System.currentTimeMillis() - this.manager.getRegistry().snapshot().get(0).since().toEpochMilli()
					> 4 * RevocationWatch.ARM_DELAY_MILLIS);
		String nodePath = holder.handle().nodePath();
		long token = holder.handle().fencingToken();
		long start = System.nanoTime();
		LockRevocation revocation = otherManager().revoke("jobs", "k", null, "operator");
		assertThat(holder.interrupted().get(5, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.lostAt.isEmpty());
		long millis = TimeUnit.NANOSECONDS.toMillis(this.lostAt.get(0) - start);
		System.out.printf("REVOKE in-JVM %s: holder lost it %d ms after the revoke call%n", mode, millis);
		assertThat(this.reasons).containsExactly(LockLossReason.REVOKED);
		assertThat(revocation.revoked()).singleElement()
			.satisfies((revoked) -> assertThat(revoked.path()).isEqualTo(nodePath))
			.satisfies((revoked) -> assertThat(revoked.fencingToken()).isEqualTo(token))
			.satisfies((revoked) -> assertThat(revoked.owner()).contains("holder"));
		assertThat(revocation.principal()).isEqualTo("operator");
		// seen by the holder's thread when interrupted, before it released the lock
		assertThat(holder.afterWork().get(5, TimeUnit.SECONDS)).startsWith("held=false assertHeld=LockLostException")
			.contains("was revoked");
		assertThat(waiter.get(10, TimeUnit.SECONDS)).isGreaterThan(token);
		assertThat(holder.closed().get(10, TimeUnit.SECONDS)).isEqualTo("quiet");
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
		assertThat(millis).isLessThan(1000);
	}

	// right after the grant: seen by the watch, or by the arming that finds the node gone
	@Test
	void aRevocationRightAfterTheGrantIsSeenToo() throws Exception {
		Holder holder = hold(LockRequest.named("jobs").keys("early").build(), "holder");
		long start = System.nanoTime();
		otherManager().revoke("jobs", "early", null, null);
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.reasons.isEmpty());
		long millis = TimeUnit.NANOSECONDS.toMillis(this.lostAt.get(0) - start);
		System.out.printf("REVOKE right after the grant: lost after %d ms%n", millis);
		assertThat(this.reasons).containsExactly(LockLossReason.REVOKED);
		assertThat(holder.handle().isHeld()).isFalse();
		assertThat(holder.finishAndRelease()).isEqualTo("quiet");
	}

	@ParameterizedTest
	@EnumSource(value = LockMode.class, names = { "READ", "SEMAPHORE" })
	void readAndSemaphoreLoseEveryHolderOrOnlyTheNodeNamed(LockMode mode) throws Exception {
		LockRequest request = LockRequest.named("shared").keys("k").mode(mode).permits(3).build();
		Holder first = hold(request, "first");
		Holder second = hold(request, "second");
		Holder third = hold(request, "third");
		String secondNode = second.handle().nodePath().substring(second.handle().nodePath().lastIndexOf('/') + 1);
		LockRevocation one = otherManager().revoke("shared", "k", secondNode, null);
		assertThat(one.revoked()).extracting(LockRevocation.RevokedHolder::node).containsExactly(secondNode);
		await().atMost(Duration.ofSeconds(5)).until(() -> !second.handle().isHeld());
		assertThat(first.handle().isHeld()).isTrue();
		assertThat(third.handle().isHeld()).isTrue();
		LockRevocation rest = otherManager().revoke("shared", "k", null, null);
		assertThat(rest.revoked()).extracting(LockRevocation.RevokedHolder::path)
			.containsExactlyInAnyOrder(first.handle().nodePath(), third.handle().nodePath());
		await().atMost(Duration.ofSeconds(5))
			.until(() -> !first.handle().isHeld() && !third.handle().isHeld());
		assertThat(this.reasons).containsOnly(LockLossReason.REVOKED).hasSize(3);
		for (Holder holder : List.of(first, second, third)) {
			assertThat(holder.finishAndRelease()).isEqualTo("quiet");
		}
		assertThat(ephemeralNodes()).isEmpty();
	}

	@Test
	void aLockWithoutKeysIsRevokedByItsName() throws Exception {
		Holder holder = hold(LockRequest.named("nightly").build(), "holder");
		String nodePath = holder.handle().nodePath();
		LockRevocation revocation = otherManager().revoke("nightly", null, null, null);
		assertThat(revocation.key()).isNull();
		assertThat(revocation.revoked()).extracting(LockRevocation.RevokedHolder::path).containsExactly(nodePath);
		await().atMost(Duration.ofSeconds(5)).until(() -> !holder.handle().isHeld());
		assertThat(this.reasons).containsExactly(LockLossReason.REVOKED);
		assertThat(holder.finishAndRelease()).isEqualTo("quiet");
	}

	@Test
	void badInputRemovesNothingAndSaysWhatWasNotFound() throws Exception {
		Holder holder = hold(LockRequest.named("jobs").keys("k").build(), "holder");
		assertProblem(() -> otherManager().revoke("nothing", "k", null, null), Problem.LOCK_NOT_FOUND, "No lock named");
		assertProblem(() -> otherManager().revoke("jobs", "other", null, null), Problem.KEY_NOT_FOUND, "has no key");
		assertProblem(() -> otherManager().revoke("jobs", "k", "lock-0000000999", null), Problem.NODE_NOT_FOUND,
				"is not a current holder");
		try (LockHandle idle = this.manager.acquire(LockRequest.named("jobs").keys("idle").build())) {
			assertThat(idle.isAcquired()).isTrue();
		}
		assertProblem(() -> otherManager().revoke("jobs", "idle", null, null), Problem.NO_HOLDER, "Nobody holds");
		assertThat(holder.handle().isHeld()).isTrue();
		assertThat(ephemeralNodes()).containsExactly(holder.handle().nodePath());
		assertThat(holder.finishAndRelease()).isEqualTo("quiet");
		assertThat(ephemeralNodes()).isEmpty();
		assertThat(this.reasons).isEmpty();
	}

	@Test
	void aRevocationWithoutZooKeeperFailsAtOnce() throws Exception {
		try (CuratorFramework unreachable = CuratorFrameworkFactory.newClient("127.0.0.1:" + FreePorts.next(), 30_000,
				1_000, new RetryOneTime(100));
				CuratorLockManager manager = new CuratorLockManager(unreachable, this.basePath, Duration.ofSeconds(1))) {
			unreachable.start();
			long start = System.nanoTime();
			assertProblem(() -> manager.revoke("jobs", "k", null, null), Problem.UNAVAILABLE,
					"ZooKeeper is not connected, so nothing was removed");
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(1000);
		}
	}

	@Test
	void lockTemplateRevokesAndAFailingListenerDoesNotUndoIt() throws Exception {
		otherManager().addLockRevocationListener((revocation) -> {
			throw new IllegalStateException("meter registry down");
		});
		List<LockRevocation> told = new CopyOnWriteArrayList<>();
		otherManager().addLockRevocationListener(told::add);
		Holder holder = hold(LockRequest.named("jobs").keys("t").build(), "holder");
		String nodePath = holder.handle().nodePath();
		LockRevocation revocation = new LockTemplate(new InstrumentedLockManager(otherManager(), List.of()))
			.revoke("jobs", "t");
		assertThat(revocation.principal()).isNull();
		assertThat(revocation.revoked()).extracting(LockRevocation.RevokedHolder::path).containsExactly(nodePath);
		assertThat(told).containsExactly(revocation);
		await().atMost(Duration.ofSeconds(5)).until(() -> !holder.handle().isHeld());
		assertThat(this.reasons).containsExactly(LockLossReason.REVOKED);
		assertThat(holder.finishAndRelease()).isEqualTo("quiet");
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> new LockTemplate((request) -> {
				throw new AssertionError("not called");
			}).revoke("jobs", "t"))
			.withMessageContaining("not zk-lock's CuratorLockManager");
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void aShortHoldPaysNoOperationForTheWatchAndALongOneOne(LockMode mode) throws Exception {
		RoundTripTests.Operations operations = new RoundTripTests.Operations();
		client.getZookeeperClient().setTracerDriver(operations);
		try {
			LockRequest request = LockRequest.named("trip").keys("k").mode(mode).permits(2).build();
			cycle(request, 0);
			operations.start(this.basePath);
			cycle(request, 0);
			List<String> shortHold = operations.stop();
			operations.start(this.basePath);
			cycle(request, 4 * RevocationWatch.ARM_DELAY_MILLIS);
			List<String> longHold = operations.stop();
			System.out.printf("REVOKE watch cost %s: short hold %d ops %s, hold of %d ms %d ops %s%n", mode,
					shortHold.size(), shortHold, 4 * RevocationWatch.ARM_DELAY_MILLIS, longHold.size(), longHold);
			assertThat(shortHold).noneMatch((name) -> name.contains("GetData"));
			if (mode != LockMode.SEMAPHORE) {
				assertThat(shortHold).hasSize(3);
			}
			List<String> extra = new ArrayList<>(longHold);
			shortHold.forEach(extra::remove);
			assertThat(extra).singleElement().satisfies((name) -> assertThat(name).contains("GetData"));
		}
		finally {
			client.getZookeeperClient().setTracerDriver(new DefaultTracerDriver());
		}
	}

	private void cycle(LockRequest request, long workMillis) throws InterruptedException {
		try (LockHandle handle = this.manager.acquire(request)) {
			assertThat(handle.isAcquired()).isTrue();
			if (workMillis > 0) {
				// simulated work inside the lock
				Thread.sleep(workMillis);
			}
		}
	}

	private static void assertProblem(Runnable call, Problem problem, String message) {
		assertThatExceptionOfType(LockRevocationException.class).isThrownBy(call::run)
			.satisfies((ex) -> assertThat(ex.getProblem()).isEqualTo(problem))
			.withMessageContaining(message);
	}

	// A thread that takes the lock, works inside it until interrupted or finished, then releases it
	private Holder hold(LockRequest request, String threadName) throws Exception {
		CompletableFuture<LockHandle> handle = new CompletableFuture<>();
		CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
		CompletableFuture<String> closed = new CompletableFuture<>();
		CompletableFuture<String> afterWork = new CompletableFuture<>();
		CountDownLatch finish = new CountDownLatch(1);
		Thread thread = new Thread(() -> {
			LockHandle lock = this.manager.acquire(request);
			handle.complete(lock);
			try {
				finish.await(30, TimeUnit.SECONDS);
				interrupted.complete(false);
			}
			catch (InterruptedException ex) {
				interrupted.complete(true);
			}
			try {
				lock.assertHeld();
				afterWork.complete("held=" + lock.isHeld() + " assertHeld=passed");
			}
			catch (LockLostException ex) {
				afterWork.complete("held=" + lock.isHeld() + " assertHeld=LockLostException " + ex.getMessage());
			}
			try {
				lock.close();
				closed.complete("quiet");
			}
			catch (RuntimeException ex) {
				closed.complete(ex.toString());
			}
		}, threadName);
		thread.start();
		LockHandle acquired = handle.get(10, TimeUnit.SECONDS);
		assertThat(acquired.isAcquired()).isTrue();
		return new Holder(acquired, interrupted, finish, afterWork, closed);
	}

	private record Holder(LockHandle handle, CompletableFuture<Boolean> interrupted, CountDownLatch finish,
			CompletableFuture<String> afterWork, CompletableFuture<String> closed) {

		// lets the thread release the lock, and waits for it to have done so
		String finishAndRelease() throws Exception {
			this.finish.countDown();
			return this.closed.get(10, TimeUnit.SECONDS);
		}

	}

}
