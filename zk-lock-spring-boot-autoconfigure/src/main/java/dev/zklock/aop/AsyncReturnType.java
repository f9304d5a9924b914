package dev.zklock.aop;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The asynchronous return types whose lock {@link DistributedLockInterceptor}
 * holds until the returned work completes: {@link CompletionStage} and
 * {@link CompletableFuture} always, Reactor's {@code Mono} and {@code Flux} when
 * Reactor is on the class path, Kotlin suspend functions and {@code Flow} when
 * kotlinx-coroutines-reactor is.
 */
enum AsyncReturnType {

	/**
	 * {@link CompletionStage} or {@link CompletableFuture}.
	 */
	COMPLETION_STAGE,

	/**
	 * Reactor's {@code Mono}; also a Kotlin suspend function, which Spring hands
	 * over as a {@code Mono}.
	 */
	MONO,

	/**
	 * Reactor's {@code Flux}; also a Kotlin suspend function returning {@code Flow},
	 * which Spring hands over as a {@code Flux}.
	 */
	FLUX,

	/**
	 * Kotlin's {@code Flow}, returned by a function that does not suspend: locked
	 * as a {@code Flux} and handed back as a {@code Flow}.
	 */
	FLOW;

	private static final String MONO_CLASS = "reactor.core.publisher.Mono";

	private static final String FLUX_CLASS = "reactor.core.publisher.Flux";

	private static final boolean reactorPresent = ClassUtils.isPresent(MONO_CLASS,
			AsyncReturnType.class.getClassLoader());

	/**
	 * The supported asynchronous type a method returns, Kotlin suspend functions
	 * and {@code Flow} included when kotlinx-coroutines-reactor is present.
	 * @param method the method
	 * @return the type, or {@code null} when it is not a supported asynchronous type
	 */
	static @Nullable AsyncReturnType of(Method method) {
		if (KotlinMethods.coroutinesReactorPresent()) {
			boolean flow = KotlinMethods.returnsFlow(method);
			if (KotlinMethods.isSuspending(method)) {
				return flow ? FLUX : MONO;
			}
			if (flow) {
				return FLOW;
			}
		}
		return of(method.getReturnType());
	}

	/**
	 * The supported asynchronous type a method returns.
	 * @param returnType the declared return type
	 * @return the type, or {@code null} when it is not a supported asynchronous type
	 */
	static @Nullable AsyncReturnType of(Class<?> returnType) {
		if (returnType == CompletionStage.class || returnType == CompletableFuture.class) {
			return COMPLETION_STAGE;
		}
		if (reactorPresent) {
			if (returnType.getName().equals(MONO_CLASS)) {
				return MONO;
			}
			if (returnType.getName().equals(FLUX_CLASS)) {
				return FLUX;
			}
		}
		return null;
	}

	/**
	 * The supported types, for messages.
	 * @return the names
	 */
	static String describeSupported() {
		if (KotlinMethods.coroutinesReactorPresent()) {
			return "CompletionStage, CompletableFuture, Mono, Flux, Flow and suspend functions";
		}
		return reactorPresent ? "CompletionStage, CompletableFuture, Mono and Flux"
				: "CompletionStage and CompletableFuture (Mono and Flux with reactor-core on the class path)";
	}

}
