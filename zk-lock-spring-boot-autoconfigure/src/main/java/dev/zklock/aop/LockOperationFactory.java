package dev.zklock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.env.PropertyResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

import dev.zklock.FencingToken;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.LockMode;
import dev.zklock.annotation.OnTimeout;

/**
 * Turns one {@link DistributedLock} declaration into a checked
 * {@link LockOperation}: it parses the timeouts, holds and key expression, resolves
 * the fallback method and the value of a skipped call, and reports every problem
 * of the declaration at once.
 */
final class LockOperationFactory {

	private static final String REACTIVE_STREAMS_PUBLISHER = "org.reactivestreams.Publisher";

	private final PropertyResolver propertyResolver;

	private final LockKeyEvaluator keyEvaluator;

	private final HoldBounds holdBounds;

	LockOperationFactory(PropertyResolver propertyResolver, @Nullable BeanFactory beanFactory) {
		this.propertyResolver = propertyResolver;
		this.keyEvaluator = new LockKeyEvaluator(beanFactory);
		this.holdBounds = new HoldBounds(propertyResolver);
	}

	/**
	 * Check the declaration and build its operation.
	 * @param method the most specific method
	 * @param userClass the user class of the target
	 * @param annotation the declaration that applies
	 * @return the operation
	 * @throws InvalidLockDeclarationException naming every problem of the declaration
	 */
	LockOperation create(Method method, Class<?> userClass, DistributedLock annotation) {
		String description = describe(method, userClass);
		List<String> problems = new ArrayList<>();
		checkReturnType(method, annotation, problems);
		checkPermits(annotation, problems);
		checkLocalHandoff(annotation, problems);
		int fencingTokenParameter = findFencingTokenParameter(method, problems);
		Duration timeout = parseTimeout(annotation.timeout(), problems);
		Duration maxHold = parseMaxHold(annotation.maxHold(), timeout, problems);
		Duration minHold = parseMinHold(annotation.minHold(), annotation.maxHold(), maxHold, problems);
		String keyExpressionString = annotation.key().trim();
		Expression keyExpression = parseKey(method, userClass, keyExpressionString, problems);
		FallbackMethod fallback = resolveFallback(method, userClass, annotation.fallbackMethod().trim(), problems);
		boolean skips = fallback == null && annotation.onTimeout() == OnTimeout.SKIP;
		Supplier<Object> skipValue = skips ? skipValue(method, problems) : null;
		KotlinMethods.check(method, skips, problems);
		if (!problems.isEmpty()) {
			throw new InvalidLockDeclarationException("@DistributedLock on " + description + " is invalid: "
					+ String.join("; ", problems));
		}
		String name = StringUtils.hasText(annotation.name()) ? annotation.name().trim() : defaultName(method, userClass);
		return new LockOperation(method, userClass, description, name, annotation.mode(), annotation.permits(), timeout,
				maxHold, minHold, annotation.localHandoff(), keyExpressionString, keyExpression, this.keyEvaluator,
				annotation.onTimeout(), fallback, skipValue, fencingTokenParameter);
	}

	private int findFencingTokenParameter(Method method, List<String> problems) {
		Class<?>[] types = method.getParameterTypes();
		List<Integer> found = new ArrayList<>();
		for (int i = 0; i < types.length; i++) {
			if (types[i] == FencingToken.class) {
				found.add(i);
			}
		}
		if (found.size() > 1) {
			problems.add("it declares " + found.size() + " parameters of type FencingToken (at positions " + found
					+ "), but the lock has one token to pass; keep one");
		}
		return found.isEmpty() ? -1 : found.get(0);
	}

	private void checkReturnType(Method method, DistributedLock annotation, List<String> problems) {
		Class<?> returnType = method.getReturnType();
		if (AsyncReturnType.of(method) != null) {
			return;
		}
		if (isAsynchronous(returnType)) {
			problems.add("it returns " + returnType.getSimpleName() + ", an asynchronous type that is not supported: "
					+ "a lock is held until the returned work completes only for "
					+ AsyncReturnType.describeSupported() + "; a plain Future cannot say when it completes without "
					+ "blocking a thread. Return one of those, or lock a synchronous method that does the work");
		}
	}

	private static boolean isAsynchronous(Class<?> type) {
		if (Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)
				|| Flow.Publisher.class.isAssignableFrom(type)) {
			return true;
		}
		if (ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null) {
			return true;
		}
		return isReactiveStreamsPublisher(type);
	}

	private static boolean isReactiveStreamsPublisher(Class<?> type) {
		ClassLoader classLoader = type.getClassLoader();
		if (!ClassUtils.isPresent(REACTIVE_STREAMS_PUBLISHER, classLoader)) {
			return false;
		}
		return ClassUtils.resolveClassName(REACTIVE_STREAMS_PUBLISHER, classLoader).isAssignableFrom(type);
	}

	private void checkPermits(DistributedLock annotation, List<String> problems) {
		if (annotation.mode() == LockMode.SEMAPHORE && annotation.permits() < 1) {
			problems.add("permits = " + annotation.permits() + ", but mode = SEMAPHORE needs at least 1 permit");
		}
		else if (annotation.mode() != LockMode.SEMAPHORE && annotation.permits() != 1) {
			problems.add("permits = " + annotation.permits() + " only applies to mode = SEMAPHORE; remove it or set "
					+ "mode = SEMAPHORE");
		}
	}

	// Several keys are known only per call: the engine gives such a call nodes of its own
	private void checkLocalHandoff(DistributedLock annotation, List<String> problems) {
		if (annotation.localHandoff() && annotation.mode() == LockMode.SEMAPHORE) {
			problems.add("localHandoff = true does not apply to mode = SEMAPHORE, whose holders each take a lease "
					+ "node of their own; remove localHandoff, or use MUTEX, READ or WRITE");
		}
	}

	private @Nullable Duration parseMaxHold(String value, @Nullable Duration timeout, List<String> problems) {
		Duration maxHold;
		try {
			maxHold = LockTimeouts.parseHold(value, this.propertyResolver);
		}
		catch (IllegalArgumentException ex) {
			problems.add("maxHold \"" + value + "\": " + ex.getMessage());
			return null;
		}
		if (maxHold != null && timeout != null && maxHold.compareTo(timeout) < 0) {
			problems.add("maxHold \"" + value + "\" is shorter than timeout " + timeout + ": callers would wait longer "
					+ "for the lock than anyone may hold it; raise maxHold or lower the timeout");
			return null;
		}
		Duration tick = this.holdBounds.tick();
		if (maxHold != null && maxHold.compareTo(tick) < 0) {
			problems.add("maxHold \"" + value + "\" is " + maxHold.toMillis() + " ms, less than one tick of zk-lock's "
					+ "clock (" + HoldBounds.TICK_PROPERTY + " = " + tick + "): zk-lock notices that this process "
					+ "runs once per tick, so it cannot tell such a hold from a pause, and a bare number means "
					+ "milliseconds; give the cap with its unit, such as \"30s\"");
			return null;
		}
		return maxHold;
	}

	private @Nullable Duration parseMinHold(String value, String maxHoldValue, @Nullable Duration maxHold,
			List<String> problems) {
		Duration minHold;
		try {
			minHold = LockTimeouts.parseMinHold(value, this.propertyResolver);
		}
		catch (IllegalArgumentException ex) {
			problems.add("minHold \"" + value + "\": " + ex.getMessage());
			return null;
		}
		if (minHold == null) {
			return null;
		}
		if (maxHold != null && minHold.compareTo(maxHold) > 0) {
			problems.add("minHold \"" + value + "\" is longer than maxHold \"" + maxHoldValue + "\": the lock would be "
					+ "taken away before it may be released; lower minHold or raise maxHold");
			return null;
		}
		Duration defaultMaxHold = this.holdBounds.defaultMaxHold();
		if (maxHold == null && maxHoldValue.isBlank() && defaultMaxHold != null
				&& minHold.compareTo(defaultMaxHold) > 0) {
			problems.add("minHold \"" + value + "\" is longer than " + HoldBounds.MAX_HOLD_PROPERTY + " ("
					+ defaultMaxHold + "), which caps this method's hold: the lock would be taken away before it may "
					+ "be released; lower minHold, or give the method a maxHold of its own at least as long");
			return null;
		}
		return minHold;
	}

	private @Nullable Duration parseTimeout(String value, List<String> problems) {
		try {
			return LockTimeouts.parse(value, this.propertyResolver);
		}
		catch (IllegalArgumentException ex) {
			problems.add("timeout \"" + value + "\": " + ex.getMessage());
			return null;
		}
	}

	private @Nullable Expression parseKey(Method method, Class<?> userClass, String keyExpression, List<String> problems) {
		if (keyExpression.isEmpty()) {
			return null;
		}
		Expression expression;
		try {
			expression = this.keyEvaluator.parse(method, userClass, keyExpression);
		}
		catch (ParseException ex) {
			problems.add("key expression '" + keyExpression + "' does not parse (" + ex.getMessage()
					+ "); write a SpEL expression such as '#order.id'");
			return null;
		}
		this.keyEvaluator.checkReferences(expression, method)
			.forEach((problem) -> problems.add("key expression '" + keyExpression + "': " + problem));
		return expression;
	}

	private @Nullable FallbackMethod resolveFallback(Method method, Class<?> userClass, String name, List<String> problems) {
		if (name.isEmpty()) {
			return null;
		}
		try {
			return FallbackMethod.resolve(method, userClass, name);
		}
		catch (IllegalArgumentException ex) {
			problems.add(ex.getMessage());
			return null;
		}
	}

	private @Nullable Supplier<Object> skipValue(Method method, List<String> problems) {
		Class<?> returnType = method.getReturnType();
		if (returnType.isPrimitive() && returnType != void.class) {
			problems.add("onTimeout = SKIP, but it returns " + returnType.getName()
					+ ", which cannot express a skipped call; return " + ClassUtils.resolvePrimitiveIfNecessary(returnType)
						.getSimpleName()
					+ " or an Optional (null or empty when skipped), or declare a fallbackMethod");
			return null;
		}
		return SkipValues.forReturnType(returnType);
	}

	private static String defaultName(Method method, Class<?> userClass) {
		String simpleName = userClass.getSimpleName();
		if (simpleName.isEmpty()) {
			simpleName = ClassUtils.getShortName(userClass);
		}
		return simpleName + "." + method.getName();
	}

	// the declared parameters: without the Continuation of a suspend function
	private static String describe(Method method, Class<?> userClass) {
		return userClass.getName() + "." + method.getName() + Arrays.stream(method.getParameterTypes())
			.limit(KotlinMethods.declaredParameterCount(method))
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", ", "(", ")"));
	}

}
