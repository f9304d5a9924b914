package dev.zklock.core;

import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

/**
 * {@link LockMode#WRITE} meets the lock contract.
 */
class WriteLockContractTests extends AbstractLockContractTests {

	@Override
	protected LockRequest.Builder lock(String key) {
		return LockRequest.named("rw").keys(key).mode(LockMode.WRITE);
	}

}
