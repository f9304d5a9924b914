package dev.zklock.aop;

import org.jspecify.annotations.Nullable;

import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;

/**
 * A key expression that is one method argument ({@code #order}, {@code #p0},
 * {@code #a0}) or a plain property path on one ({@code #order.id}), read without
 * building an evaluation context per call. The property path runs as its own SpEL
 * expression with the argument as root object, so properties resolve exactly as
 * in the full expression. Whatever this cannot read the same way (a {@code null}
 * argument under a property path, an evaluation error, a call with a different
 * argument count) is {@link #UNRESOLVED}: the caller then evaluates the full
 * expression, which gives the usual result or error.
 */
final class ArgumentKeyExpression {

	/**
	 * Returned when the full expression has to be evaluated instead.
	 */
	static final Object UNRESOLVED = new Object();

	private final int index;

	private final int parameterCount;

	private final @Nullable Expression propertyPath;

	private final EvaluationContext propertyContext;

	/**
	 * Create a shortcut.
	 * @param index the index of the argument
	 * @param parameterCount the number of parameters of the method
	 * @param propertyPath the property path read from the argument, or {@code null}
	 * for the argument itself
	 * @param propertyContext the context the property path is evaluated in, shared
	 * and never written to
	 */
	ArgumentKeyExpression(int index, int parameterCount, @Nullable Expression propertyPath,
			EvaluationContext propertyContext) {
		this.index = index;
		this.parameterCount = parameterCount;
		this.propertyPath = propertyPath;
		this.propertyContext = propertyContext;
	}

	/**
	 * The value of the expression for one call.
	 * @param args the call's arguments
	 * @return the value, possibly {@code null}, or {@link #UNRESOLVED}
	 */
	@Nullable Object value(@Nullable Object[] args) {
		if (args.length != this.parameterCount) {
			return UNRESOLVED;
		}
		Object argument = args[this.index];
		if (this.propertyPath == null) {
			return argument;
		}
		if (argument == null) {
			return UNRESOLVED;
		}
		try {
			return this.propertyPath.getValue(this.propertyContext, argument);
		}
		catch (EvaluationException ex) {
			return UNRESOLVED;
		}
	}

}
