package dev.zklock.autoconfigure;

import java.util.function.Supplier;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.function.SingletonSupplier;

import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.core.LockManager;
import dev.zklock.core.LockRegistry;

/**
 * Finds the {@link CuratorLockManager} behind the application's lock manager, on
 * first use, for the beans that read its registry.
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

	static Supplier<LockRegistry> registry(ObjectProvider<LockManager> lockManager) {
		Supplier<CuratorLockManager> curator = curator(lockManager);
		return () -> {
			CuratorLockManager manager = curator.get();
			return (manager != null) ? manager.getRegistry() : null;
		};
	}

}
