package dev.zklock.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.aop.ProxyMethodInvocation;

import dev.zklock.LockContext;
import dev.zklock.LockException;
import dev.zklock.LockLostException;
import dev.zklock.LockRequest;
import dev.zklock.core.AsyncLockHandle;
import dev.zklock.core.HeldCheck;

/**
 * The Reactor part of {@link AsyncLockInvoker}, loaded only when Reactor is on the
 * class path. Each subscription takes the lock, then invokes the method (on the
 * lock manager's executor) and subscribes to what it returns with the lock in the
 * Reactor context under the key {@code LockContext.class}; completion, error and
 * cancellation release the lock. Cancelling while waiting abandons the wait and
 * deletes the node.
 */
final class ReactorLockInvoker {

	private static final int PENDING = 0;

	private static final int DELIVERED = 1;

	private static final int CANCELLED = 2;

	private ReactorLockInvoker() {
	}

	static Object invoke(AsyncLockInvoker invoker, MethodInvocation invocation, LockOperation operation,
			AsyncReturnType type) {
		Object target = invocation.getThis();
		@Nullable Object[] args = invocation.getArguments().clone();
		if (type == AsyncReturnType.FLOW) {
			// a Kotlin Flow returned by a function that does not suspend: locked as a Flux, handed back as a Flow
			return CoroutineLockSupport.toFlow(invoke(invoker, invocation, operation, AsyncReturnType.FLUX));
		}
		if (type == AsyncReturnType.FLUX) {
			return Flux.deferContextual((context) -> {
				LockRequest request = prepare(invoker, operation, args, target, context);
				return Flux.usingWhen(acquire(invoker, operation, request),
						(resource) -> Flux.from(body(invoker, invocation, operation, request, resource, true)),
						(resource) -> complete(invoker, operation, resource), (resource, ex) -> release(resource),
						ReactorLockInvoker::release)
					.onErrorMap(ReactorLockInvoker::isWrappedLoss, ReactorLockInvoker::unwrapLoss);
			});
		}
		return Mono.deferContextual((context) -> {
			LockRequest request = prepare(invoker, operation, args, target, context);
			return Mono.usingWhen(acquire(invoker, operation, request),
					(resource) -> Mono.from(body(invoker, invocation, operation, request, resource, false)),
					(resource) -> complete(invoker, operation, resource), (resource, ex) -> release(resource),
					ReactorLockInvoker::release)
				.onErrorMap(ReactorLockInvoker::isWrappedLoss, ReactorLockInvoker::unwrapLoss);
		});
	}

	// usingWhen wraps what the completion step signals ("Async resource cleanup
	// failed"): the caller gets the LockLostException itself
	private static boolean isWrappedLoss(Throwable ex) {
		return ex.getClass() == RuntimeException.class && ex.getCause() instanceof LockLostException;
	}

	private static Throwable unwrapLoss(Throwable wrapped) {
		Throwable cause = wrapped.getCause();
		return (cause != null) ? cause : wrapped;
	}

	private static LockRequest prepare(AsyncLockInvoker invoker, LockOperation operation, @Nullable Object[] args,
			@Nullable Object target, ContextView context) {
		LockRequest request = operation.createRequest(args, target);
		LockContext outer = context.getOrDefault(LockContext.class, null);
		invoker.checkNotNested(operation, request, (outer != null) ? outer : LockContext.find().orElse(null));
		return request;
	}

	/**
	 * The lock, or the {@link LockException} a fallback handles. A lock that
	 * arrives after the subscriber left is released.
	 */
	private static Mono<Object> acquire(AsyncLockInvoker invoker, LockOperation operation, LockRequest request) {
		return Mono.create((sink) -> {
			AtomicInteger state = new AtomicInteger(PENDING);
			CompletableFuture<AsyncLockHandle> pending = DistributedLockInterceptor.whileAcquiring(operation,
					() -> invoker.lockManager().acquire(request));
			sink.onCancel(() -> {
				if (state.compareAndSet(PENDING, CANCELLED)) {
					pending.cancel(false);
					pending.thenAccept(AsyncLockHandle::release);
				}
			});
			pending.whenComplete((handle, ex) -> {
				if (ex != null) {
					Throwable cause = AsyncLockInvoker.unwrap(ex);
					if (AsyncLockInvoker.isFallbackCause(operation, cause)) {
						sink.success(cause);
					}
					else {
						sink.error(cause);
					}
				}
				else if (state.compareAndSet(PENDING, DELIVERED)) {
					sink.success(handle);
				}
				else {
					handle.release();
				}
			});
		});
	}

	private static Publisher<?> body(AsyncLockInvoker invoker, MethodInvocation invocation, LockOperation operation,
			LockRequest request, Object resource, boolean flux) {
		Object target = invocation.getThis();
		@Nullable Object[] args = invocation.getArguments();
		@Nullable Object returned;
		try {
			if (resource instanceof LockException cause) {
				returned = invoker.fallback(operation, request, target, args, cause);
			}
			else {
				AsyncLockHandle handle = (AsyncLockHandle) resource;
				if (!handle.isAcquired()) {
					returned = invoker.notAcquired(operation, request, target, args);
				}
				else {
					MethodInvocation call = (invocation instanceof ProxyMethodInvocation proxyInvocation)
							? proxyInvocation.invocableClone() : invocation;
					returned = invoker.invokeBody(call, operation, handle);
					if (returned != null) {
						Publisher<?> work = publisher(operation, returned);
						return flux ? Flux.from(work).contextWrite((ctx) -> ctx.put(LockContext.class, handle))
								: Mono.from(work).contextWrite((ctx) -> ctx.put(LockContext.class, handle));
					}
				}
			}
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
		if (returned == null || returned == AsyncLockInvoker.SKIPPED) {
			return Mono.empty();
		}
		return publisher(operation, returned);
	}

	// a Kotlin Flow returned by a function that does not suspend is adapted
	private static Publisher<?> publisher(LockOperation operation, Object returned) {
		return (operation.getAsyncReturnType() == AsyncReturnType.FLOW) ? CoroutineLockSupport.toPublisher(returned)
				: (Publisher<?>) returned;
	}

	private static Publisher<?> complete(AsyncLockInvoker invoker, LockOperation operation, Object resource) {
		if (!(resource instanceof AsyncLockHandle handle) || !handle.isAcquired()) {
			return Mono.empty();
		}
		LockLostException toThrow = invoker.lostAtCompletion(operation, HeldCheck.lossOf(handle));
		Mono<Void> release = Mono.fromFuture(handle.release()).onErrorResume((ex) -> Mono.empty());
		return (toThrow != null) ? release.then(Mono.error(toThrow)) : release;
	}

	private static Publisher<?> release(Object resource) {
		if (resource instanceof AsyncLockHandle handle) {
			return Mono.fromFuture(handle.release()).onErrorResume((ex) -> Mono.empty());
		}
		return Mono.empty();
	}

}
