package dev.zklock.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.apache.curator.framework.recipes.locks.InterProcessMutex;

import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.LockMode;

/**
 * The ways a thread contends for the one contended key, each marking the hand-off
 * on its {@link HandoffProbe} the same way: right after the lock arrives and
 * right before it is given back.
 */
public enum Contestant {

	/**
	 * {@code @DistributedLock} through the Spring proxy.
	 */
	ZK_LOCK {
		@Override
		Cycle newCycle(LockFixture fixture) {
			LockedService service = fixture.service();
			return (probe) -> {
				probe.starting();
				service.contended(LockFixture.CONTENDED_KEY, probe);
			};
		}
	},

	/**
	 * zk-lock with local hand-off ({@link HotKeys}) through {@code LockTemplate}.
	 */
	HOT_KEY {
		@Override
		Cycle newCycle(LockFixture fixture) {
			LockTemplate template = fixture.context().template();
			LockRequest request = HotKeys.request(HotKeys.NAME, LockMode.MUTEX);
			return (probe) -> {
				probe.starting();
				HotKeys.hold(template, request, probe);
			};
		}
	},

	/**
	 * Raw Curator, one {@code InterProcessMutex} per thread.
	 */
	CURATOR_PER_THREAD {
		@Override
		Cycle newCycle(LockFixture fixture) {
			InterProcessMutex mutex = fixture.curatorRecipes().newContendedMutex();
			return (probe) -> curator(mutex, probe);
		}
	},

	/**
	 * Raw Curator, one {@code InterProcessMutex} shared by every thread.
	 */
	CURATOR_SHARED {
		@Override
		Cycle newCycle(LockFixture fixture) {
			InterProcessMutex mutex = fixture.curatorRecipes().sharedContendedMutex();
			return (probe) -> curator(mutex, probe);
		}
	},

	/**
	 * Spring Integration's registry, whose lock object is shared by every thread.
	 */
	SPRING_INTEGRATION {
		@Override
		Cycle newCycle(LockFixture fixture) {
			Lock lock = fixture.springIntegration().contendedLock();
			return (probe) -> {
				probe.starting();
				lock.lock();
				try {
					probe.acquired();
					probe.releasing();
				}
				finally {
					lock.unlock();
				}
			};
		}
	};

	/**
	 * One thread's lock cycle.
	 * @param fixture the locks of this JVM
	 * @return the cycle, to be run by one thread only
	 */
	abstract Cycle newCycle(LockFixture fixture);

	private static void curator(InterProcessMutex mutex, HandoffProbe probe) throws Exception {
		probe.starting();
		if (!mutex.acquire(60, TimeUnit.SECONDS)) {
			throw new IllegalStateException("Curator mutex not acquired in 60 s");
		}
		try {
			probe.acquired();
			probe.releasing();
		}
		finally {
			mutex.release();
		}
	}

	/**
	 * Acquire, mark, release.
	 */
	@FunctionalInterface
	interface Cycle {

		void run(HandoffProbe probe) throws Exception;

	}

}
