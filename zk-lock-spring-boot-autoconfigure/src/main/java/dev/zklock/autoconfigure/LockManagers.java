package dev.zklock.autoconfigure;

import java.util.function.Supplier;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.function.SingletonSupplier;

import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.core.LockManager;
import dev.zklock.core.LockRegistry;

/**
 * Finds the {@link CuratorLockManager} behind the application's lock manager, and
 * its {@link AsyncLockManager}, on first use, for the beans that read their state.
 */
final class LockManagers {

	private LockManagers() {
	}

	static Supplier<CuratorLockManager> curator(ObjectProvider<LockManager> lockManager) {
		return SingletonSupplier.of(() -> {
			LockManager manager = InstrumentedLockManager.unwrap(lockManager.getIfUnique());
			return (manager instanceof CuratorLockManager curator) ? curator : null;
		});
	}

	static Supplier<AsyncLockManager> async(ObjectProvider<AsyncLockManager> asyncLockManager) {
		return SingletonSupplier.of(asyncLockManager::getIfUnique);
	}

	static Supplier<LockRegistry> registry(ObjectProvider<LockManager> lockManager) {
		Supplier<CuratorLockManager> curator = curator(lockManager);
		return () -> {
			CuratorLockManager manager = curator.get();
			return (manager != null) ? manager.getRegistry() : null;
		};
	}

}
