package dev.zklock.core;

import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

/**
 * {@link LockMode#MUTEX} meets the lock contract.
 */
class MutexLockContractTests extends AbstractLockContractTests {

	@Override
	protected LockRequest.Builder lock(String key) {
		return LockRequest.named("mutex").keys(key).mode(LockMode.MUTEX);
	}

}
