package dev.zklock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

import dev.zklock.aop.TestZooKeeper;
import dev.zklock.integration.autoconfigure.ZkLockIntegrationAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link LockRegistryLeaderInitiator} over {@link ZkLockRegistry}, three initiators
 * with sessions of their own: exactly one leads through many heartbeats (re-entrant
 * {@code tryLock}), and when it stops another takes over.
 */
class ZkLockRegistryLeadershipTests {

	private final ApplicationContextRunner runner = TestZooKeeper.contextRunner()
		.withConfiguration(AutoConfigurations.of(ZkLockIntegrationAutoConfiguration.class))
		.withPropertyValues("zk-lock.integration.lock-registry.enabled=true");

	@Test
	void exactlyOneInitiatorLeadsAndAnotherTakesOverWhenItStops() {
		this.runner.run((a) -> this.runner.withPropertyValues(ZkLockRegistryTests.basePath(a)).run((b) -> this.runner
			.withPropertyValues(ZkLockRegistryTests.basePath(a)).run((c) -> {
				AtomicInteger leaders = new AtomicInteger();
				AtomicInteger maxLeaders = new AtomicInteger();
				List<Candidate> candidates = new ArrayList<>();
				List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();
				for (LockRegistry<?> registry : List.of(ZkLockRegistryTests.registry(a),
						ZkLockRegistryTests.registry(b), ZkLockRegistryTests.registry(c))) {
					Candidate candidate = new Candidate(leaders, maxLeaders);
					LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
					initiator.setHeartBeatMillis(50);
					initiator.setBusyWaitMillis(50);
					candidates.add(candidate);
					initiators.add(initiator);
					initiator.start();
				}
				try {
					await().atMost(Duration.ofSeconds(10)).until(() -> leaders.get() == 1);
					Candidate leader = candidates.stream().filter((candidate) -> candidate.leading).findFirst()
						.orElseThrow();
					// some 20 heartbeats: the leader keeps the lock and no one else is granted it
					await().atMost(Duration.ofSeconds(10)).until(() -> leader.heartbeatsSurvived() >= 1);
					assertThat(candidates.stream().mapToInt((candidate) -> candidate.grants.get()).sum()).isOne();
					assertThat(maxLeaders.get()).as("never two leaders at once").isOne();
					// SI unlocks before it revokes, so the next grant may come before the old revocation
					initiators.get(candidates.indexOf(leader)).stop();
					await().atMost(Duration.ofSeconds(10)).until(
							() -> candidates.stream().anyMatch((candidate) -> candidate != leader && candidate.leading));
				}
				finally {
					initiators.forEach(LockRegistryLeaderInitiator::stop);
				}
			})));
	}

	/**
	 * Counts grants and concurrent leaders.
	 */
	static final class Candidate extends DefaultCandidate {

		final AtomicInteger grants = new AtomicInteger();

		private final AtomicInteger leaders;

		private final AtomicInteger maxLeaders;

		private final long since = System.nanoTime();

		volatile boolean leading;

		private volatile long grantedAt;

		Candidate(AtomicInteger leaders, AtomicInteger maxLeaders) {
			this.leaders = leaders;
			this.maxLeaders = maxLeaders;
		}

		@Override
		public void onGranted(Context context) {
			this.grants.incrementAndGet();
			this.grantedAt = System.nanoTime();
			this.leading = true;
			this.maxLeaders.accumulateAndGet(this.leaders.incrementAndGet(), Math::max);
		}

		@Override
		public void onRevoked(Context context) {
			this.leading = false;
			this.leaders.decrementAndGet();
		}

		// whole seconds led since the grant: each is some 20 heartbeats of re-entrant tryLock
		long heartbeatsSurvived() {
			return this.leading ? Duration.ofNanos(System.nanoTime() - this.grantedAt).toSeconds() : 0;
		}

	}

}
