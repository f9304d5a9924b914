package dev.zklock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.function.SingletonSupplier;

import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.core.LocalHandoffs;
import dev.zklock.LockManager;
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

	// An asynchronous manager that is a view of the same engine would count its hand-offs twice
	static Supplier<List<LocalHandoffs>> localHandoffs(ObjectProvider<LockManager> lockManager,
			ObjectProvider<AsyncLockManager> asyncLockManager) {
		Supplier<CuratorLockManager> curator = curator(lockManager);
		Supplier<AsyncLockManager> async = async(asyncLockManager);
		return () -> {
			CuratorLockManager manager = curator.get();
			AsyncLockManager asyncManager = async.get();
			List<LocalHandoffs> engines = new ArrayList<>(2);
			if (manager != null) {
				engines.add(manager.getLocalHandoffs());
			}
			if (asyncManager != null && (manager == null || asyncManager.getRegistry() != manager.getRegistry())) {
				engines.add(asyncManager.getLocalHandoffs());
			}
			return engines;
		};
	}

}
