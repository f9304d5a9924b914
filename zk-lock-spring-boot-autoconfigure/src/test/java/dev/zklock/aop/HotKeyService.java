package dev.zklock.aop;

import java.util.concurrent.CompletableFuture;

import reactor.core.publisher.Mono;

import dev.zklock.FencingToken;
import dev.zklock.annotation.DistributedLock;

/**
 * Methods of every kind that lock one key of lock "hot" with local hand-off (and
 * one blocking method without it, lock "cold"), each holding it until its
 * {@code release} completes and answering the fencing token it held with.
 */
public class HotKeyService {

	@DistributedLock(name = "hot", key = "#key", localHandoff = true)
	public long blocking(String key, FencingToken token, CompletableFuture<Void> release) {
		release.join();
		return token.value();
	}

	@DistributedLock(name = "hot", key = "#key", localHandoff = true)
	public CompletableFuture<Long> stage(String key, FencingToken token, CompletableFuture<Void> release) {
		return release.thenApply((ignored) -> token.value());
	}

	@DistributedLock(name = "hot", key = "#key", localHandoff = true)
	public Mono<Long> mono(String key, FencingToken token, CompletableFuture<Void> release) {
		return Mono.fromFuture(release).then(Mono.fromSupplier(token::value));
	}

	@DistributedLock(name = "cold", key = "#key")
	public long withoutHandoff(String key, FencingToken token, CompletableFuture<Void> release) {
		release.join();
		return token.value();
	}

	// several keys take nodes of their own: the engine ignores the flag
	@DistributedLock(name = "hot", key = "{#first, #second}", localHandoff = true)
	public long twoKeys(String first, String second, FencingToken token, CompletableFuture<Void> release) {
		release.join();
		return token.value();
	}

}
