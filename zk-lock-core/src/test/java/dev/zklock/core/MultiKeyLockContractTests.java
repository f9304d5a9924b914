package dev.zklock.core;

import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

/**
 * A MUTEX on two keys meets the lock contract. The excluding request overlaps on
 * one key only and sorts a free key first, so a failed attempt must give that key
 * back.
 */
class MultiKeyLockContractTests extends AbstractLockContractTests {

	@Override
	protected LockRequest.Builder lock(String key) {
		return LockRequest.named("multi").keys(key + "-2", key + "-1").mode(LockMode.MUTEX);
	}

	@Override
	protected LockRequest.Builder excluder(String key) {
		return LockRequest.named("multi").keys(key + "-2", key + "-0").mode(LockMode.MUTEX);
	}

	@Override
	protected int nodesPerHold() {
		return 2;
	}

}
