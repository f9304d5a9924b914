package dev.zklock.aop;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.util.ClassUtils;

/**
 * What zk-lock needs to know about Kotlin {@code suspend} functions and methods
 * returning {@code Flow}, answered without loading any Kotlin class, so that it
 * is safe in Java-only applications. The compiler adds a {@code Continuation}
 * as the last JVM parameter of a suspend function; zk-lock hides it: key
 * expressions, fallbacks and messages see the declared parameters only.
 */
final class KotlinMethods {

	static final String FLOW_CLASS = "kotlinx.coroutines.flow.Flow";

	static final String COROUTINES_REACTOR = "org.jetbrains.kotlinx:kotlinx-coroutines-reactor";

	// kotlinx-coroutines-reactor brings reactor-core; both must be there
	private static final boolean coroutinesReactorPresent = isPresent("kotlinx.coroutines.reactor.MonoKt")
			&& isPresent("reactor.core.publisher.Mono");

	private KotlinMethods() {
	}

	private static boolean isPresent(String className) {
		return ClassUtils.isPresent(className, KotlinMethods.class.getClassLoader());
	}

	/**
	 * Whether zk-lock can lock suspend functions and {@code Flow} methods here.
	 * @return whether kotlinx-coroutines-reactor (and so Reactor) is present
	 */
	static boolean coroutinesReactorPresent() {
		return coroutinesReactorPresent;
	}

	static boolean isSuspending(Method method) {
		return KotlinDetector.isSuspendingFunction(method);
	}

	/**
	 * Whether the method returns {@code Flow}; for a suspend function, whose JVM
	 * return type is {@code Object}, as its Kotlin declaration says.
	 * @param method the method
	 * @return whether it returns {@code Flow}
	 */
	static boolean returnsFlow(Method method) {
		return new MethodParameter(method, -1).getParameterType().getName().equals(FLOW_CLASS);
	}

	/**
	 * The number of parameters the source declares: without the
	 * {@code Continuation} of a suspend function.
	 * @param method the method
	 * @return the count
	 */
	static int declaredParameterCount(Method method) {
		int count = method.getParameterCount();
		return isSuspending(method) ? count - 1 : count;
	}

	/**
	 * The arguments of the declared parameters.
	 * @param args the call's arguments, the {@code Continuation} last for a
	 * suspend function
	 * @param declaredCount the number of declared parameters
	 * @return the arguments without the {@code Continuation}
	 */
	static @Nullable Object[] declaredArguments(@Nullable Object[] args, int declaredCount) {
		return (args.length > declaredCount) ? Arrays.copyOf(args, declaredCount) : args;
	}

	/**
	 * Add what keeps a suspend or {@code Flow} method from being locked.
	 * @param method the locked method
	 * @param skips whether a call that does not get the lock is skipped
	 * @param problems where to add the problems
	 */
	static void check(Method method, boolean skips, List<String> problems) {
		boolean suspending = isSuspending(method);
		if (!suspending && !returnsFlow(method)) {
			return;
		}
		String what = suspending ? "it is a suspend function" : "it returns Flow";
		if (!coroutinesReactorPresent) {
			problems.add(what + ", which zk-lock locks until it completes through kotlinx-coroutines-reactor, as "
					+ "Spring does, but that is not on the class path; add the dependency " + COROUTINES_REACTOR
					+ " (it brings reactor-core)");
			return;
		}
		if (skips && !returnsFlow(method) && !SkipValues.nullFits(method)) {
			problems.add("onTimeout = SKIP, but it is a suspend function whose return type is not nullable, so a "
					+ "skipped call has nothing to return; make the return type nullable (null when skipped) or "
					+ "Unit, or declare a fallbackMethod");
		}
	}

}
