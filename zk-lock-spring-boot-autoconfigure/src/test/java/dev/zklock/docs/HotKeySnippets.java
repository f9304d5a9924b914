package dev.zklock.docs;

import dev.zklock.LockRequest;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;

/**
 * The examples of docs/hot-keys.md.
 */
class HotKeySnippets {

	private final Stock stock = new Stock();

	@DistributedLock(key = "#sku", mode = LockMode.WRITE, timeout = "5s", localHandoff = true)
	public void reserve(String sku, int quantity) {
		this.stock.take(sku, quantity);
	}

	LockRequest request(String sku) {
		LockRequest request = LockRequest.named("stock").keys(sku).localHandoff(true).build();
		return request;
	}

	static class Stock {

		void take(String sku, int quantity) {
		}

	}

}
