package dev.zklock.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The asynchronous return types whose lock {@link DistributedLockInterceptor}
 * holds until the returned work completes: {@link CompletionStage} and
 * {@link CompletableFuture} always, Reactor's {@code Mono} and {@code Flux} when
 * Reactor is on the class path.
 */
enum AsyncReturnType {

	/**
	 * {@link CompletionStage} or {@link CompletableFuture}.
	 */
	COMPLETION_STAGE,

	/**
	 * Reactor's {@code Mono}.
	 */
	MONO,

	/**
	 * Reactor's {@code Flux}.
	 */
	FLUX;

	private static final String MONO_CLASS = "reactor.core.publisher.Mono";

	private static final String FLUX_CLASS = "reactor.core.publisher.Flux";

	private static final boolean reactorPresent = ClassUtils.isPresent(MONO_CLASS,
			AsyncReturnType.class.getClassLoader());

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
		return reactorPresent ? "CompletionStage, CompletableFuture, Mono and Flux"
				: "CompletionStage and CompletableFuture (Mono and Flux with reactor-core on the class path)";
	}

}
