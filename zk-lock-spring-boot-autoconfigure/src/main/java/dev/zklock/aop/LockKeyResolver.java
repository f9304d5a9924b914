package dev.zklock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.util.ObjectUtils;

import dev.zklock.LockKeyException;

/**
 * The keys of one call to a {@link LockOperation}: its key expression evaluated
 * against the call (or the argument it names read directly), and the value, a
 * collection or an array, turned into non-blank keys. A key that cannot be made is
 * a {@link LockKeyException} naming the expression and the method.
 */
final class LockKeyResolver {

	private final Method method;

	private final Class<?> targetClass;

	private final String description;

	private final String expressionString;

	private final @Nullable Expression expression;

	private final LockKeyEvaluator evaluator;

	private final @Nullable ArgumentKeyExpression shortcut;

	LockKeyResolver(Method method, Class<?> targetClass, String description, String expressionString,
			@Nullable Expression expression, LockKeyEvaluator evaluator) {
		this.method = method;
		this.targetClass = targetClass;
		this.description = description;
		this.expressionString = expressionString;
		this.expression = expression;
		this.evaluator = evaluator;
		this.shortcut = (expression != null) ? evaluator.shortcut(expression, method) : null;
	}

	/**
	 * The keys of a call.
	 * @param args the declared arguments of the call
	 * @param target the bean
	 * @return the keys, empty when the expression is empty
	 * @throws LockKeyException when the key is null, blank or cannot be evaluated
	 */
	List<String> keys(@Nullable Object[] args, @Nullable Object target) {
		if (this.expression == null) {
			return List.of();
		}
		Object value = (this.shortcut != null) ? this.shortcut.value(args) : ArgumentKeyExpression.UNRESOLVED;
		if (value == ArgumentKeyExpression.UNRESOLVED) {
			value = evaluateKey(args, target);
		}
		if (value == null) {
			throw keyProblem("evaluated to null", null);
		}
		if (value instanceof Collection<?> collection) {
			return keys(collection.toArray());
		}
		if (value.getClass().isArray()) {
			return keys(ObjectUtils.toObjectArray(value));
		}
		return List.of(key(value, -1));
	}

	private @Nullable Object evaluateKey(@Nullable Object[] args, @Nullable Object target) {
		try {
			return this.evaluator.evaluate(Objects.requireNonNull(this.expression), this.method, args, target,
					this.targetClass);
		}
		catch (EvaluationException ex) {
			throw keyProblem("could not be evaluated (" + ex.getMessage() + ")", ex);
		}
	}

	private List<String> keys(@Nullable Object[] elements) {
		if (elements.length == 0) {
			throw keyProblem("evaluated to an empty collection, which names no key", null);
		}
		List<String> keys = new ArrayList<>(elements.length);
		for (int i = 0; i < elements.length; i++) {
			keys.add(key(elements[i], i));
		}
		return keys;
	}

	private String key(@Nullable Object element, int index) {
		String where = (index < 0) ? "" : " at element " + index;
		if (element == null) {
			throw keyProblem("evaluated to null" + where, null);
		}
		String key = element.toString();
		if (key == null || key.isBlank()) {
			throw keyProblem("evaluated to a blank key" + where, null);
		}
		return key;
	}

	private LockKeyException keyProblem(String problem, @Nullable Throwable cause) {
		return new LockKeyException("Lock key expression '" + this.expressionString + "' of " + this.description
				+ " " + problem + "; pass arguments that give a non-blank key, or change the expression", cause);
	}

}
