package dev.zklock.leader;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.zklock.LockContext;

/**
 * Runs the body of a Kotlin suspend {@code @Leader} function within its
 * leadership term. Spring hands the interceptor a cold {@code Mono} (a
 * {@code Flux} for {@code Flow}) and awaits it after the interceptor returned,
 * so the term is put into the Reactor context, which Spring bridges into the
 * coroutine context, under the key {@code LockContext.class}, as for
 * {@code @DistributedLock} Mono methods. Loaded only for suspend functions, that
 * is when kotlinx-coroutines-reactor, and so Reactor, is present.
 */
final class LeaderCoroutines {

	private LeaderCoroutines() {
	}

	static @Nullable Object withinTerm(@Nullable Object returned, LockContext term) {
		if (returned instanceof Mono<?> mono) {
			return mono.contextWrite((context) -> context.put(LockContext.class, term));
		}
		if (returned instanceof Publisher<?> publisher) {
			return Flux.from(publisher).contextWrite((context) -> context.put(LockContext.class, term));
		}
		return returned;
	}

}
