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

	private final boolean suspending;

	private FallbackMethod(Method method, boolean passesCause, boolean suspending) {
		this.method = method;
		this.passesCause = passesCause;
		this.suspending = suspending;
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
		// a suspend function's fallback suspends too; both are compared without their Continuation
		boolean suspending = KotlinMethods.isSuspending(locked);
		Class<?>[] params = declaredTypes(locked);
		List<Method> named = Arrays.stream(ReflectionUtils.getUniqueDeclaredMethods(targetClass))
			.filter((candidate) -> candidate.getName().equals(name) && !candidate.isBridge())
			.toList();
		String wanted = describeSignature(locked, name);
		if (named.isEmpty()) {
			throw new IllegalArgumentException("fallbackMethod '" + name + "' does not exist in "
					+ targetClass.getName() + "; declare " + wanted);
		}
		List<Method> fitting = named.stream()
			.filter((candidate) -> KotlinMethods.isSuspending(candidate) == suspending)
			.toList();
		Method match = fitting.stream().filter((candidate) -> takesCause(candidate, params)).findFirst()
			.orElseGet(() -> fitting.stream()
				.filter((candidate) -> Arrays.equals(declaredTypes(candidate), params))
				.findFirst()
				.orElse(null));
		if (match == null) {
			String found = named.stream().map(FallbackMethod::describeParameters).collect(Collectors.joining(", "));
			throw new IllegalArgumentException("fallbackMethod '" + name + "' has the wrong parameters: found "
					+ found + "; declare " + wanted);
		}
		checkReturnType(locked, match, wanted);
		return new FallbackMethod(match, declaredTypes(match).length > params.length, suspending);
	}

	private static Class<?>[] declaredTypes(Method method) {
		return Arrays.copyOf(method.getParameterTypes(), KotlinMethods.declaredParameterCount(method));
	}

	private static boolean takesCause(Method candidate, Class<?>[] params) {
		Class<?>[] types = declaredTypes(candidate);
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
		String params = Arrays.stream(declaredTypes(locked)).map(Class::getSimpleName)
			.collect(Collectors.joining(", "));
		String withCause = params.isEmpty() ? "LockException" : params + ", LockException";
		String returns = KotlinMethods.isSuspending(locked) ? "suspend fun" : locked.getReturnType().getSimpleName();
		return returns + " " + name + "(" + params + ") or " + returns + " " + name + "(" + withCause + ")";
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
		if (this.suspending) {
			// the declared arguments, the cause if taken, then the caller's Continuation
			int declared = args.length - 1;
			fallbackArgs = Arrays.copyOf(args, declared + (this.passesCause ? 2 : 1));
			if (this.passesCause) {
				fallbackArgs[declared] = cause;
			}
			fallbackArgs[fallbackArgs.length - 1] = args[declared];
			return CoroutineLockSupport.invokeSuspending(this.method, target, fallbackArgs);
		}
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
