package dev.zklock.core;

import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

/**
 * {@link LockMode#MUTEX} with local hand-off meets the lock contract: holders of
 * this process pass the key among themselves, waiters queue in the process.
 */
class LocalHandoffMutexContractTests extends AbstractLockContractTests {

	@Override
	protected LockRequest.Builder lock(String key) {
		return LockRequest.named("mutex").keys(key).mode(LockMode.MUTEX).localHandoff(true);
	}

	@Override
	protected int queuedWaiters(int holders) {
		return this.manager.getRegistry().waitingCount();
	}

}
