package dev.zklock.aop;

import java.lang.reflect.Method;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

import org.springframework.core.CollectionFactory;

/**
 * What a skipped call ({@link dev.zklock.annotation.OnTimeout#SKIP}) returns, by
 * return type: nothing for void, an empty {@link Optional}, an empty collection,
 * map or stream, otherwise {@code null}.
 */
public final class SkipValues {

	private static final Supplier<Object> NULL = () -> null;

	private SkipValues() {
	}

	/**
	 * The supplier of the value a skipped call returns.
	 * @param returnType the method's return type, not a primitive other than void
	 * @return the supplier
	 */
	public static Supplier<Object> forReturnType(Class<?> returnType) {
		Object shared = sharedEmptyValue(returnType);
		if (shared != null) {
			return () -> shared;
		}
		if (returnType == Stream.class) {
			return Stream::empty;
		}
		if (Collection.class.isAssignableFrom(returnType)
				&& canCreate(() -> CollectionFactory.createCollection(returnType, 0))) {
			return () -> CollectionFactory.createCollection(returnType, 0);
		}
		if (Map.class.isAssignableFrom(returnType) && canCreate(() -> CollectionFactory.createMap(returnType, 0))) {
			return () -> CollectionFactory.createMap(returnType, 0);
		}
		return NULL;
	}

	/**
	 * Whether the caller of the method can take the {@code null} a skipped call of
	 * a Kotlin suspend function returns: its declared return type is nullable or
	 * {@code Unit}. Always {@code true} for other methods.
	 * @param method the method
	 * @return whether {@code null} fits
	 */
	public static boolean nullFits(Method method) {
		return !KotlinMethods.isSuspending(method) || !KotlinMethods.coroutinesReactorPresent()
				|| CoroutineLockSupport.returnsNullable(method);
	}

	private static @Nullable Object sharedEmptyValue(Class<?> type) {
		if (type == Optional.class) {
			return Optional.empty();
		}
		if (type == OptionalInt.class) {
			return OptionalInt.empty();
		}
		if (type == OptionalLong.class) {
			return OptionalLong.empty();
		}
		if (type == OptionalDouble.class) {
			return OptionalDouble.empty();
		}
		if (type == Iterable.class || type == Collection.class || type == List.class) {
			return List.of();
		}
		if (type == Set.class) {
			return Set.of();
		}
		if (type == SortedSet.class || type == NavigableSet.class) {
			return Collections.emptyNavigableSet();
		}
		if (type == Map.class) {
			return Map.of();
		}
		if (type == SortedMap.class || type == NavigableMap.class) {
			return Collections.emptyNavigableMap();
		}
		return null;
	}

	private static boolean canCreate(Supplier<Object> factory) {
		try {
			factory.get();
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

}
