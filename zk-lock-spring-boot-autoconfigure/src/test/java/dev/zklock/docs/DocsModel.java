package dev.zklock.docs;

import java.util.concurrent.CompletableFuture;

import reactor.core.publisher.Mono;

/**
 * Stand-ins for an application's own types, so that the documentation's snippets
 * compile without showing code that has nothing to do with locking.
 */
final class DocsModel {

	private DocsModel() {
	}

	record Order(long id, int quantity) {
	}

	record Payment(long orderId, long cents) {
	}

	record Receipt(String status) {

		static Receipt retryLater() {
			return new Receipt("retry later");
		}

	}

	interface Orders {

		Order save(Order order);

		Order find(long id);

		Order update(String orderId, int change);

		void expireUnpaid();

	}

	interface Stock {

		void move(String from, String to, String sku, int quantity);

	}

	interface PaymentGateway {

		Receipt charge(Payment payment);

	}

	interface Ledger {

		CompletableFuture<Receipt> writeAsync(String orderId, long token);

		Mono<Receipt> write(String orderId, long token);

	}

	interface Reports {

		void generate();

	}

	interface Resource {

		void write(long fencingToken);

	}

}
