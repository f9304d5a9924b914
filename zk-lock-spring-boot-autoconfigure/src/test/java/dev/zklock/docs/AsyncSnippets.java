package dev.zklock.docs;

import java.util.concurrent.CompletableFuture;

import reactor.core.publisher.Mono;

import dev.zklock.FencingToken;
import dev.zklock.LockContext;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.docs.DocsModel.Ledger;
import dev.zklock.docs.DocsModel.Receipt;

/**
 * The asynchronous and reactive examples of docs/async.md.
 */
class AsyncSnippets {

	private final Ledger ledger;

	AsyncSnippets(Ledger ledger) {
		this.ledger = ledger;
	}

	@DistributedLock(key = "#orderId", timeout = "5s")
	public CompletableFuture<Receipt> settle(String orderId, FencingToken token) {
		return this.ledger.writeAsync(orderId, token.value());   // the lock is held until this completes
	}

	@DistributedLock(key = "#orderId", timeout = "5s", onTimeout = OnTimeout.SKIP)
	public Mono<Receipt> settleReactive(String orderId) {
		return Mono.deferContextual((ctx) -> this.ledger.write(orderId, ctx.get(LockContext.class).fencingToken()));
	}

}
