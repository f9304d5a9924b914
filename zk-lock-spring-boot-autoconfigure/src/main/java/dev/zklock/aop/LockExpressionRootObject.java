package dev.zklock.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * The {@code #root} object of a {@link dev.zklock.annotation.DistributedLock}
 * key expression.
 */
public final class LockExpressionRootObject {

	private final Method method;

	private final @Nullable Object[] args;

	private final @Nullable Object target;

	private final Class<?> targetClass;

	LockExpressionRootObject(Method method, @Nullable Object[] args, @Nullable Object target, Class<?> targetClass) {
		this.method = method;
		this.args = args;
		this.target = target;
		this.targetClass = targetClass;
	}

	/**
	 * The method being called.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * The name of the method being called.
	 * @return the method name
	 */
	public String getMethodName() {
		return this.method.getName();
	}

	/**
	 * The arguments of the call.
	 * @return the arguments
	 */
	public @Nullable Object[] getArgs() {
		return this.args;
	}

	/**
	 * The bean the method is called on.
	 * @return the target bean
	 */
	public @Nullable Object getTarget() {
		return this.target;
	}

	/**
	 * The user class of the target bean.
	 * @return the target class
	 */
	public Class<?> getTargetClass() {
		return this.targetClass;
	}

}
