package dev.zklock.core;

import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

/**
 * {@link LockMode#SEMAPHORE} with one permit meets the lock contract.
 */
class SemaphoreLockContractTests extends AbstractLockContractTests {

	@Override
	protected LockRequest.Builder lock(String key) {
		return LockRequest.named("semaphore").keys(key).mode(LockMode.SEMAPHORE).permits(1);
	}

}
