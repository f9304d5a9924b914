package dev.zklock.core;

import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

/**
 * {@link LockMode#READ} with local hand-off meets the lock contract, with a writer
 * with local hand-off as the request it excludes: local readers share one node
 * while no writer waits, and a waiting writer stops new ones.
 */
class LocalHandoffReadContractTests extends AbstractLockContractTests {

	@Override
	protected LockRequest.Builder lock(String key) {
		return LockRequest.named("rw").keys(key).mode(LockMode.READ).localHandoff(true);
	}

	@Override
	protected LockRequest.Builder excluder(String key) {
		return LockRequest.named("rw").keys(key).mode(LockMode.WRITE).localHandoff(true);
	}

	@Override
	protected boolean sharedAmongThemselves() {
		return true;
	}

	@Override
	protected int queuedWaiters(int holders) {
		return this.manager.getRegistry().waitingCount();
	}

}
