package dev.zklock.autoconfigure;

import java.util.function.Supplier;

import org.springframework.boot.health.contributor.Health;

import dev.zklock.core.AsyncLockManager;
import dev.zklock.core.LockRegistry;
import dev.zklock.health.ZkLockHealthIndicator;

/**
 * The {@code zkLock} health indicator, with a {@code client} detail that says which
 * client zk-lock uses: {@code shared} and the bean, or {@code dedicated}.
 */
final class ZkLockClientHealthIndicator extends ZkLockHealthIndicator {

	private final ZkLockClient client;

	ZkLockClientHealthIndicator(ZkLockClient client, Supplier<LockRegistry> registry,
			Supplier<AsyncLockManager> asyncLockManager) {
		super(client.getCuratorFramework(), registry, asyncLockManager);
		this.client = client;
	}

	@Override
	public Health health() {
		Health health = super.health();
		return Health.status(health.getStatus())
			.withDetails(health.getDetails())
			.withDetail("client", this.client.describe())
			.build();
	}

}
