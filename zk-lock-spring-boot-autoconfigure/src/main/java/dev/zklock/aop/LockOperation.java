package dev.zklock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;

import dev.zklock.LockException;
import dev.zklock.LockKeyException;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;
import dev.zklock.annotation.OnTimeout;

/**
 * A {@link dev.zklock.annotation.DistributedLock} declaration of one method of
 * one target class, resolved and checked once: the lock name, the parsed key
 * expression and timeout, the fallback method and the value a skipped call
 * returns. Instances are immutable and shared by all calls.
 */
public final class LockOperation {

	private final Method method;

	private final Class<?> targetClass;

	private final String description;

	private final String name;

	private final LockMode mode;

	private final int permits;

	private final @Nullable Duration timeout;

	private final String keyExpressionString;

	private final LockKeyResolver keys;

	private final @Nullable Duration maxHold;

	private final @Nullable Duration minHold;

	private final boolean localHandoff;

	private final OnTimeout onTimeout;

	private final @Nullable FallbackMethod fallback;

	private final @Nullable Supplier<Object> skipValue;

	private final int fencingTokenParameter;

	private final @Nullable AsyncReturnType asyncReturnType;

	private final int declaredParameterCount;

	LockOperation(Method method, Class<?> targetClass, String description, String name, LockMode mode, int permits,
			@Nullable Duration timeout, @Nullable Duration maxHold, @Nullable Duration minHold, boolean localHandoff,
			String keyExpressionString, @Nullable Expression keyExpression, LockKeyEvaluator keyEvaluator,
			OnTimeout onTimeout, @Nullable FallbackMethod fallback, @Nullable Supplier<Object> skipValue,
			int fencingTokenParameter) {
		this.method = method;
		this.targetClass = targetClass;
		this.description = description;
		this.name = name;
		this.mode = mode;
		this.permits = permits;
		this.timeout = timeout;
		this.maxHold = maxHold;
		this.minHold = minHold;
		this.localHandoff = localHandoff;
		this.keyExpressionString = keyExpressionString;
		this.keys = new LockKeyResolver(method, targetClass, description, keyExpressionString, keyExpression,
				keyEvaluator);
		this.onTimeout = onTimeout;
		this.fallback = fallback;
		this.skipValue = skipValue;
		this.fencingTokenParameter = fencingTokenParameter;
		this.asyncReturnType = AsyncReturnType.of(method);
		this.declaredParameterCount = KotlinMethods.declaredParameterCount(method);
	}

	/**
	 * The asynchronous type the method returns, looked up once.
	 * @return the type, or {@code null} for a synchronous method
	 */
	@Nullable AsyncReturnType getAsyncReturnType() {
		return this.asyncReturnType;
	}

	/**
	 * The annotated method, as declared by the target class.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * The user class of the bean the method belongs to.
	 * @return the target class
	 */
	public Class<?> getTargetClass() {
		return this.targetClass;
	}

	/**
	 * The lock name.
	 * @return the name
	 */
	public String getName() {
		return this.name;
	}

	/**
	 * The lock mode.
	 * @return the mode
	 */
	public LockMode getMode() {
		return this.mode;
	}

	/**
	 * The number of permits.
	 * @return the permits
	 */
	public int getPermits() {
		return this.permits;
	}

	/**
	 * The timeout, or {@code null} for {@code zk-lock.default-timeout}.
	 * @return the timeout
	 */
	public @Nullable Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * The longest hold, or {@code null} for {@code zk-lock.max-hold}.
	 * @return the cap
	 */
	public @Nullable Duration getMaxHold() {
		return this.maxHold;
	}

	/**
	 * The shortest hold, or {@code null} for none.
	 * @return the shortest hold
	 */
	public @Nullable Duration getMinHold() {
		return this.minHold;
	}

	/**
	 * Whether the lock is handed off locally; the engine ignores it for a call
	 * that locks several keys.
	 * @return whether local hand-off is asked for
	 */
	public boolean isLocalHandoff() {
		return this.localHandoff;
	}

	/**
	 * The key expression; empty for one lock per method.
	 * @return the key expression
	 */
	public String getKeyExpression() {
		return this.keyExpressionString;
	}

	/**
	 * What happens when the lock is not acquired and there is no fallback.
	 * @return the timeout action
	 */
	public OnTimeout getOnTimeout() {
		return this.onTimeout;
	}

	/**
	 * The index of the parameter of type {@link dev.zklock.FencingToken} that
	 * receives the token of the acquired lock.
	 * @return the index, or -1 when the method declares none
	 */
	public int getFencingTokenParameter() {
		return this.fencingTokenParameter;
	}

	/**
	 * Whether a fallback method is declared.
	 * @return whether there is a fallback
	 */
	public boolean hasFallback() {
		return this.fallback != null;
	}

	/**
	 * Evaluate the key expression for a call and build the lock request.
	 * @param args the call's arguments
	 * @param target the bean
	 * @return the request
	 * @throws LockKeyException when the key is null, blank or cannot be evaluated
	 */
	public LockRequest createRequest(@Nullable Object[] args, @Nullable Object target) {
		// the key sees the declared parameters, without the Continuation of a suspend function
		@Nullable Object[] declared = KotlinMethods.declaredArguments(args, this.declaredParameterCount);
		return new LockRequest(this.name, this.keys.keys(declared, target), this.mode, this.permits, this.timeout, this.maxHold,
				this.minHold, this.localHandoff);
	}

	/**
	 * Call the fallback method.
	 * @param target the bean
	 * @param args the call's arguments
	 * @param cause why the lock was not acquired
	 * @return the fallback's result
	 * @throws Throwable what the fallback threw, unchanged
	 */
	Object invokeFallback(@Nullable Object target, @Nullable Object[] args, LockException cause) throws Throwable {
		return Objects.requireNonNull(this.fallback, "no fallback").invoke(target, args, cause);
	}

	/**
	 * The value a skipped call returns.
	 * @return the value
	 */
	@Nullable Object skipValue() {
		return Objects.requireNonNull(this.skipValue, "no skip value").get();
	}

	/**
	 * The annotated method, for messages: class name, method name and
	 * parameter types.
	 * @return the description
	 */
	public String describe() {
		return this.description;
	}

	@Override
	public String toString() {
		return "LockOperation[" + this.description + ", name=" + this.name + ", key='" + this.keyExpressionString
				+ "', mode=" + this.mode + (this.localHandoff ? ", localHandoff" : "") + "]";
	}

}
