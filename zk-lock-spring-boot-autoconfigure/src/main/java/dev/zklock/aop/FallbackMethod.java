package dev.zklock.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.zklock.LockException;

/**
 * A fallback method of a {@link dev.zklock.annotation.DistributedLock} method,
 * resolved and checked once: same parameters as the locked method, optionally
 * followed by a {@link LockException}, and a compatible return type.
 */
final class FallbackMethod {

	private final Method method;

	private final boolean passesCause;

	private FallbackMethod(Method method, boolean passesCause) {
		this.method = method;
		this.passesCause = passesCause;
		ReflectionUtils.makeAccessible(method);
	}

	/**
	 * Find the fallback for the given method. A candidate that takes the
	 * {@link LockException} wins over one that does not.
	 * @param locked the locked method
	 * @param targetClass the class to search
	 * @param name the fallback method name
	 * @return the fallback
	 * @throws IllegalArgumentException with a description of the problem
	 */
	static FallbackMethod resolve(Method locked, Class<?> targetClass, String name) {
		Class<?>[] params = locked.getParameterTypes();
		List<Method> named = Arrays.stream(ReflectionUtils.getUniqueDeclaredMethods(targetClass))
			.filter((candidate) -> candidate.getName().equals(name) && !candidate.isBridge())
			.toList();
		String wanted = describeSignature(locked, name);
		if (named.isEmpty()) {
			throw new IllegalArgumentException("fallbackMethod '" + name + "' does not exist in "
					+ targetClass.getName() + "; declare " + wanted);
		}
		Method match = named.stream().filter((candidate) -> takesCause(candidate, params)).findFirst()
			.orElseGet(() -> named.stream()
				.filter((candidate) -> Arrays.equals(candidate.getParameterTypes(), params))
				.findFirst()
				.orElse(null));
		if (match == null) {
			String found = named.stream().map(FallbackMethod::describeParameters).collect(Collectors.joining(", "));
			throw new IllegalArgumentException("fallbackMethod '" + name + "' has the wrong parameters: found "
					+ found + "; declare " + wanted);
		}
		checkReturnType(locked, match, wanted);
		return new FallbackMethod(match, match.getParameterCount() > params.length);
	}

	private static boolean takesCause(Method candidate, Class<?>[] params) {
		Class<?>[] types = candidate.getParameterTypes();
		return types.length == params.length + 1
				&& Arrays.equals(Arrays.copyOf(types, params.length), params)
				&& types[params.length].isAssignableFrom(LockException.class);
	}

	private static void checkReturnType(Method locked, Method fallback, String wanted) {
		Class<?> expected = locked.getReturnType();
		Class<?> actual = fallback.getReturnType();
		boolean compatible = (expected == void.class) ? actual == void.class : ClassUtils.isAssignable(expected, actual);
		if (!compatible) {
			throw new IllegalArgumentException("fallbackMethod '" + fallback.getName() + "' returns "
					+ actual.getSimpleName() + " but " + locked.getName() + " returns " + expected.getSimpleName()
					+ "; declare " + wanted);
		}
	}

	private static String describeSignature(Method locked, String name) {
		String params = Arrays.stream(locked.getParameterTypes()).map(Class::getSimpleName)
			.collect(Collectors.joining(", "));
		String withCause = params.isEmpty() ? "LockException" : params + ", LockException";
		return locked.getReturnType().getSimpleName() + " " + name + "(" + params + ") or "
				+ locked.getReturnType().getSimpleName() + " " + name + "(" + withCause + ")";
	}

	private static String describeParameters(Method method) {
		return method.getName() + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName)
			.collect(Collectors.joining(", ", "(", ")"));
	}

	/**
	 * Call the fallback.
	 * @param target the bean
	 * @param args the arguments of the locked call
	 * @param cause why the lock was not acquired
	 * @return the fallback's result
	 * @throws Throwable what the fallback threw, unchanged
	 */
	Object invoke(@Nullable Object target, @Nullable Object[] args, LockException cause) throws Throwable {
		@Nullable Object[] fallbackArgs = args;
		if (this.passesCause) {
			fallbackArgs = Arrays.copyOf(args, args.length + 1);
			fallbackArgs[args.length] = cause;
		}
		try {
			return this.method.invoke(target, fallbackArgs);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	@Override
	public String toString() {
		return this.method.toGenericString();
	}

}
