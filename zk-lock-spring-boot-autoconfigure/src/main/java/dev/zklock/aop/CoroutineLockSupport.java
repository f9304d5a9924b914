package dev.zklock.aop;

import java.lang.reflect.Method;

import kotlin.Unit;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;
import kotlin.coroutines.EmptyCoroutineContext;
import kotlin.jvm.JvmClassMappingKt;
import kotlin.reflect.KFunction;
import kotlin.reflect.KType;
import kotlin.reflect.jvm.ReflectJvmMapping;
import kotlinx.coroutines.Job;
import kotlinx.coroutines.reactive.ReactiveFlowKt;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import org.springframework.core.CoroutinesUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;

/**
 * The Kotlin part of zk-lock's AOP, loaded only for suspend functions and
 * {@code Flow} methods, so only when Kotlin and kotlinx-coroutines-reactor are
 * present ({@link KotlinMethods} checks that at startup). Spring hands an
 * interceptor a cold {@code Mono} (a {@code Flux} for {@code Flow}) for a suspend
 * function and awaits what the interceptor returns, so zk-lock locks them on its
 * Reactor path; this class converts between {@code Flow} and {@code Publisher}
 * and calls suspend fallbacks.
 */
final class CoroutineLockSupport {

	private CoroutineLockSupport() {
	}

	/**
	 * Whether a skipped call may return {@code null}: the declared return type is
	 * nullable, or {@code Unit}, whose suspend functions Spring completes empty.
	 * @param method a suspend function
	 * @return whether {@code null} fits
	 */
	static boolean returnsNullable(Method method) {
		if (!KotlinDetector.isKotlinReflectPresent()) {
			return true;
		}
		KFunction<?> function = ReflectJvmMapping.getKotlinFunction(method);
		if (function == null) {
			return true;
		}
		KType type = function.getReturnType();
		return type.isMarkedNullable() || JvmClassMappingKt.getKotlinClass(Unit.class).equals(type.getClassifier());
	}

	/**
	 * The {@code Flow} a locked {@code Flux} is handed back as, collected once per
	 * subscription.
	 * @param locked the locked publisher
	 * @return the flow
	 */
	static Object toFlow(Object locked) {
		return ReactiveFlowKt.asFlow((Publisher<?>) locked);
	}

	/**
	 * The publisher of what a method returned: itself, or a {@code Flow} adapted.
	 * @param returned a {@code Publisher} or a {@code Flow}
	 * @return the publisher
	 */
	static Publisher<?> toPublisher(Object returned) {
		if (returned instanceof Publisher<?> publisher) {
			return publisher;
		}
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(null, returned);
		if (adapter == null) {
			throw new IllegalStateException("Cannot adapt " + returned.getClass().getName() + " to a Publisher");
		}
		return adapter.toPublisher(returned);
	}

	/**
	 * Call a suspend fallback as Spring calls a suspend function: a cold
	 * {@code Mono} (a {@code Flux} for {@code Flow}) in the caller's coroutine
	 * context without its job.
	 * @param fallback the suspend fallback
	 * @param target the bean
	 * @param args the fallback's arguments, the caller's {@code Continuation} last
	 * @return the publisher
	 */
	// Spring takes @Nullable arguments, but NullAway on JDK 17 cannot read that from the class file
	@SuppressWarnings("NullAway")
	static Publisher<?> invokeSuspending(Method fallback, @Nullable Object target, @Nullable Object[] args) {
		Object last = args[args.length - 1];
		CoroutineContext context = (last instanceof Continuation<?> continuation)
				? continuation.getContext().minusKey(Job.Key) : EmptyCoroutineContext.INSTANCE;
		return CoroutinesUtils.invokeSuspendingFunction(context, fallback, target, args);
	}

}
