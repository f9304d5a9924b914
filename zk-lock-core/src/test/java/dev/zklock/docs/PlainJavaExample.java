package dev.zklock.docs;

import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

import dev.zklock.LockContext;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.CuratorLockManager;

/**
 * The example of README.md's "Using the engine without Spring Boot": zk-lock-core on
 * its own, with no Spring on the class path.
 */
final class PlainJavaExample {

	private PlainJavaExample() {
	}

	// pays an order under a WRITE lock and returns the fencing token of that hold
	static long payOrder(String connectString, String orderId) throws Exception {
		try (CuratorFramework client = CuratorFrameworkFactory.newClient(connectString,
				new ExponentialBackoffRetry(100, 3))) {
			client.start();
			CuratorLockManager locks = new CuratorLockManager(client, "/zk-lock", Duration.ofSeconds(30));
			try {
				LockTemplate template = new LockTemplate(locks);
				LockRequest request = LockRequest.named("orders")
					.keys(orderId)
					.mode(LockMode.WRITE)
					.timeout(Duration.ofSeconds(5))
					.build();
				return template.execute(request, () -> {
					long token = LockContext.current().fencingToken();
					// ... write the payment, passing the token to the store
					return token;
				});
			}
			finally {
				locks.close();
			}
		}
	}

}
