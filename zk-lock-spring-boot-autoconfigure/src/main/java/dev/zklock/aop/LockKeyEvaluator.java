package dev.zklock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * Parses lock key expressions once, checks the variables and beans they refer
 * to, and evaluates them against a method call.
 */
final class LockKeyEvaluator extends CachedExpressionEvaluator {

	private static final Pattern INDEXED_ARGUMENT = Pattern.compile("[pa](\\d+)");

	private static final Set<String> ROOT_VARIABLES = Set.of("root", "this");

	private final Map<ExpressionKey, Expression> expressions = new ConcurrentHashMap<>(64);

	private final @Nullable BeanFactory beanFactory;

	private final @Nullable BeanResolver beanResolver;

	private final StandardEvaluationContext propertyContext = new StandardEvaluationContext();

	LockKeyEvaluator(@Nullable BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		this.beanResolver = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
		// initialised here, so that threads sharing the context only read it
		this.propertyContext.getPropertyAccessors();
		this.propertyContext.getTypeConverter();
	}

	/**
	 * Parse the expression, or return the one parsed before for the same element.
	 * @param method the annotated method
	 * @param targetClass the target class
	 * @param expression the key expression
	 * @return the parsed expression
	 * @throws org.springframework.expression.ParseException when it does not parse
	 */
	Expression parse(Method method, Class<?> targetClass, String expression) {
		return getExpression(this.expressions, new AnnotatedElementKey(method, targetClass), expression);
	}

	/**
	 * Describe each variable or bean the expression refers to that will not exist
	 * when it is evaluated.
	 * @param expression the parsed expression
	 * @param method the annotated method
	 * @return the problems, empty when there are none
	 */
	List<String> checkReferences(Expression expression, Method method) {
		List<String> problems = new ArrayList<>();
		if (expression instanceof SpelExpression spel) {
			Set<String> parameterNames = parameterNames(method);
			collect(spel.getAST(), KotlinMethods.declaredParameterCount(method), parameterNames, problems);
			if (KotlinMethods.isSuspending(method) && !problems.isEmpty()) {
				problems.add("a suspend function's key sees its declared parameters only, not the Continuation that "
						+ "Kotlin adds");
			}
		}
		return problems;
	}

	private void collect(SpelNode node, int parameterCount, Set<String> parameterNames, List<String> problems) {
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			String problem = checkVariable(name, parameterCount, parameterNames);
			if (problem != null) {
				problems.add(problem);
			}
		}
		else if (node instanceof BeanReference reference && this.beanFactory != null
				&& !this.beanFactory.containsBean(reference.getName())) {
			problems.add("'" + node.toStringAST() + "' refers to a bean named '" + reference.getName()
					+ "' that does not exist; define the bean or fix the name");
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collect(node.getChild(i), parameterCount, parameterNames, problems);
		}
	}

	private @Nullable String checkVariable(String name, int parameterCount, Set<String> parameterNames) {
		if (ROOT_VARIABLES.contains(name) || parameterNames.contains(name)) {
			return null;
		}
		Matcher indexed = INDEXED_ARGUMENT.matcher(name);
		if (indexed.matches()) {
			int index = Integer.parseInt(indexed.group(1));
			if (index < parameterCount) {
				return null;
			}
			if (parameterCount == 0) {
				return "'#" + name + "' is out of range: the method has no parameters";
			}
			String last = Integer.toString(parameterCount - 1);
			String range = (parameterCount == 1) ? "#p0 (or #a0)" : "#p0 to #p" + last + " (or #a0 to #a" + last + ")";
			return "'#" + name + "' is out of range: the method has " + parameterCount + " parameter"
					+ ((parameterCount == 1) ? "" : "s") + ", so use " + range;
		}
		List<String> choices = new ArrayList<>();
		parameterNames.forEach((parameter) -> choices.add("#" + parameter));
		for (int i = 0; i < parameterCount; i++) {
			choices.add("#p" + i);
		}
		choices.add("#root");
		String hint = (parameterNames.isEmpty() && parameterCount > 0)
				? "; parameter names are only known when the class is compiled with '-parameters'" : "";
		return "'#" + name + "' is neither a parameter of the method nor a root variable; use one of " + choices
				+ hint;
	}

	private Set<String> parameterNames(Method method) {
		@Nullable String @Nullable [] names = declaredParameterNames(method);
		return (names != null) ? new LinkedHashSet<>(List.of(names)) : Set.of();
	}

	// without the name of a suspend function's Continuation, when the discoverer gives it
	private @Nullable String @Nullable [] declaredParameterNames(Method method) {
		@Nullable String @Nullable [] names = getParameterNameDiscoverer().getParameterNames(method);
		int count = KotlinMethods.declaredParameterCount(method);
		return (names != null && names.length > count) ? Arrays.copyOf(names, count) : names;
	}

	/**
	 * A shortcut for an expression that is one argument, or a plain property path
	 * on one, that reads it as the full evaluation would.
	 * @param expression the parsed expression
	 * @param method the annotated method
	 * @return the shortcut, or {@code null} when the expression needs the full
	 * evaluation
	 */
	@Nullable ArgumentKeyExpression shortcut(Expression expression, Method method) {
		if (!(expression instanceof SpelExpression spel)) {
			return null;
		}
		SpelNode variable = spel.getAST();
		List<String> properties = new ArrayList<>();
		if (variable instanceof CompoundExpression compound) {
			variable = compound.getChild(0);
			for (int i = 1; i < compound.getChildCount(); i++) {
				if (!(compound.getChild(i) instanceof PropertyOrFieldReference property) || property.isNullSafe()) {
					return null;
				}
				properties.add(property.getName());
			}
		}
		if (!(variable instanceof VariableReference)) {
			return null;
		}
		int index = argumentIndex(variable.toStringAST().substring(1), method);
		if (index < 0) {
			return null;
		}
		Expression propertyPath = properties.isEmpty() ? null : getParser().parseExpression(String.join(".", properties));
		return new ArgumentKeyExpression(index, KotlinMethods.declaredParameterCount(method), propertyPath,
				this.propertyContext);
	}

	// The argument a variable names: like MethodBasedEvaluationContext, a later parameter wins
	private int argumentIndex(String variable, Method method) {
		if (ROOT_VARIABLES.contains(variable)) {
			return -1;
		}
		@Nullable String @Nullable [] names = declaredParameterNames(method);
		int count = KotlinMethods.declaredParameterCount(method);
		if (names != null && names.length != count) {
			return -1;
		}
		int index = -1;
		for (int i = 0; i < count; i++) {
			if (variable.equals("a" + i) || variable.equals("p" + i) || (names != null && variable.equals(names[i]))) {
				index = i;
			}
		}
		return index;
	}

	/**
	 * Evaluate the expression for one call.
	 * @param expression the parsed expression
	 * @param method the annotated method
	 * @param args the call's arguments
	 * @param target the bean
	 * @param targetClass the user class of the bean
	 * @return the value
	 */
	// Spring takes @Nullable Object[] here too, but NullAway on JDK 17 cannot read that from the class file
	@SuppressWarnings("NullAway")
	@Nullable Object evaluate(Expression expression, Method method, @Nullable Object[] args, @Nullable Object target,
			Class<?> targetClass) {
		LockExpressionRootObject root = new LockExpressionRootObject(method, args, target, targetClass);
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, method, args,
				getParameterNameDiscoverer());
		if (this.beanResolver != null) {
			context.setBeanResolver(this.beanResolver);
		}
		return expression.getValue(context);
	}

}
