package dev.zklock.core;

import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

/**
 * {@link LockMode#READ} meets the lock contract, with a writer as the request it
 * excludes: readers share, a writer waits for them and they wait for it.
 */
class ReadLockContractTests extends AbstractLockContractTests {

	@Override
	protected LockRequest.Builder lock(String key) {
		return LockRequest.named("rw").keys(key).mode(LockMode.READ);
	}

	@Override
	protected LockRequest.Builder excluder(String key) {
		return LockRequest.named("rw").keys(key).mode(LockMode.WRITE);
	}

	@Override
	protected boolean sharedAmongThemselves() {
		return true;
	}

}
