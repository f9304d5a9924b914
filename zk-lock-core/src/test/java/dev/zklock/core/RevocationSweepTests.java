package dev.zklock.core;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockLossReason;
import dev.zklock.LockRequest;
import dev.zklock.LockState;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@link RevocationWatch}'s sweep comes when a hold is due for its watch, and
 * looks only at the holds due: under steady churn of short holds beside many long
 * ones, watched already, its work follows the holds acquired, not the time passed
 * times the holds held.
 */
class RevocationSweepTests extends AbstractZooKeeperTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final int LONG_HOLDS = 100;

	@Test
	void underSteadyChurnTheSweepLooksOnlyAtTheHoldsDue() throws Exception {
		RevocationWatch watch = revocationWatch(this.manager);
		List<AsyncLockHandle> longHolds = new ArrayList<>();
		for (int i = 0; i < LONG_HOLDS; i++) {
			longHolds.add(this.asyncManager.acquire(request("long-" + i)).get(30, TimeUnit.SECONDS));
		}
		await("every long hold watched").atMost(WAIT)
			.until(() -> this.manager.getRegistry()
				.entries(EnumSet.of(LockState.HELD))
				.stream()
				.noneMatch(LockRegistry.Entry::wantsWatch));
		long sweepsBefore = watch.sweeps();
		long examinedBefore = watch.examined();
		int churn = 0;
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
		while (System.nanoTime() < end) {
			try (LockHandle handle = this.manager.acquire(request("short"))) {
				assertThat(handle.isHeld()).isTrue();
				churn++;
			}
		}
		long sweeps = watch.sweeps() - sweepsBefore;
		long examined = watch.examined() - examinedBefore;
		assertThat(examined).as("holds looked at by %d sweeps during %d short holds", sweeps, churn)
			.isLessThanOrEqualTo(churn);
		assertThat(sweeps).as("sweeps during %d short holds", churn).isLessThanOrEqualTo(churn);
		for (AsyncLockHandle handle : longHolds) {
			handle.release().get(30, TimeUnit.SECONDS);
		}
		assertThat(this.manager.getRegistry().snapshot()).isEmpty();
	}

	@Test
	void aHoldInDoubtWhenItsWatchIsDueIsWatchedOnceHeldAgain() throws Exception {
		RevocationWatch watch = revocationWatch(this.manager);
		List<LockLossReason> reasons = new CopyOnWriteArrayList<>();
		this.manager.addLockLossListener((lock, reason) -> reasons.add(reason));
		LockRegistry registry = this.manager.getRegistry();
		for (int attempt = 1;; attempt++) {
			try (LockHandle handle = this.manager.acquire(request("doubt"))) {
				LockRegistry.Entry entry = registry.entries(EnumSet.of(LockState.HELD)).get(0);
				long examinedBefore = watch.examined();
				// in doubt before its watch is due (50 ms), as a suspended connection leaves it
				registry.transition(entry, EnumSet.of(LockState.HELD), LockState.IN_DOUBT);
				if (!entry.wantsWatch()) {
					// this thread came after the sweep: watched already, so try again (a loaded machine)
					assertThat(attempt).as("holds watched before the test could put them in doubt").isLessThan(20);
					continue;
				}
				// the sweep finds it in doubt, and looks again 250 ms later rather than forgetting it
				await().atMost(WAIT).until(() -> watch.examined() - examinedBefore >= 2);
				assertThat(entry.wantsWatch()).isTrue();
				registry.transition(entry, EnumSet.of(LockState.IN_DOUBT), LockState.HELD);
				await("watched once held again").atMost(WAIT).until(() -> !entry.wantsWatch());
				// so a revocation now is seen as one
				client.delete().forPath(handle.nodePath());
				await().atMost(WAIT).until(() -> !reasons.isEmpty());
				assertThat(reasons).containsExactly(LockLossReason.REVOKED);
				assertThat(handle.isHeld()).isFalse();
			}
			break;
		}
		assertThat(registry.snapshot()).isEmpty();
	}

	private static LockRequest request(String key) {
		return LockRequest.named("sweep").keys(key).mode(LockMode.MUTEX).timeout(WAIT).build();
	}

	// the engine is private to the manager: reached by reflection, for the counters only
	private static RevocationWatch revocationWatch(CuratorLockManager manager) throws ReflectiveOperationException {
		Field engine = CuratorLockManager.class.getDeclaredField("engine");
		engine.setAccessible(true);
		HoldTimers timers = ((LockEngine) engine.get(manager)).holdTimers();
		Field watch = HoldTimers.class.getDeclaredField("revocationWatch");
		watch.setAccessible(true);
		return (RevocationWatch) watch.get(timers);
	}

}
