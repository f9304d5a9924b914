package dev.zklock.docs;

import java.time.Duration;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockRevocation;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.LockMode;
import dev.zklock.docs.DocsModel.Order;
import dev.zklock.docs.DocsModel.Orders;
import dev.zklock.docs.DocsModel.Reports;

/**
 * The {@code LockTemplate} example of docs/annotation-and-template.md.
 */
class LockTemplateSnippets {

	private final LockTemplate locks;

	private final Orders orders;

	private final Reports reports;

	LockTemplateSnippets(LockTemplate locks, Orders orders, Reports reports) {
		this.locks = locks;
		this.orders = orders;
		this.reports = reports;
	}

	Order change(String orderId, int change) {
		// Runs the callback under the lock; throws LockTimeoutException when not acquired in time.
		Order order = this.locks.execute(
				LockRequest.named("order").keys(orderId).mode(LockMode.WRITE).timeout(Duration.ofSeconds(5)).build(),
				() -> this.orders.update(orderId, change));

		// Or try-with-resources:
		try (LockHandle lock = this.locks.tryAcquire(LockRequest.named("report").timeout(Duration.ZERO).build())) {
			if (lock.isAcquired()) {
				this.reports.generate();
			}
		}
		return order;
	}

	LockRevocation revoke(String orderId) {
		return this.locks.revoke("order", orderId);
	}

}
