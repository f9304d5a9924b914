package dev.zklock.aop;

import java.lang.reflect.Method;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.core.env.StandardEnvironment;
import org.springframework.expression.Expression;
import org.springframework.util.ReflectionUtils;

import dev.zklock.LockKeyException;
import dev.zklock.annotation.DistributedLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The shortcut for keys that are one argument or a property path on one: which
 * expressions take it, and that it gives the same keys and errors as the full
 * SpEL evaluation.
 */
class ArgumentKeyExpressionTests {

	private final LockKeyEvaluator evaluator = new LockKeyEvaluator(null);

	private final LockOperationSource source = new LockOperationSource(new StandardEnvironment(), null);

	@Test
	void takesOnlyPlainArgumentsAndPropertyPaths() {
		assertThat(shortcut("byName", "#order")).isNotNull();
		assertThat(shortcut("byName", "#p0")).isNotNull();
		assertThat(shortcut("byName", "#a0")).isNotNull();
		assertThat(shortcut("byName", "#order.id")).isNotNull();
		assertThat(shortcut("byName", "#order.customer.id")).isNotNull();
		assertThat(shortcut("byName", "#order?.id")).isNull();
		assertThat(shortcut("byName", "#order.id()")).isNull();
		assertThat(shortcut("byName", "#order.tags[0]")).isNull();
		assertThat(shortcut("byName", "#order.id + ':' + #order.customer.id")).isNull();
		assertThat(shortcut("byName", "#root.methodName")).isNull();
		assertThat(shortcut("byName", "#this")).isNull();
		assertThat(shortcut("byName", "'fixed'")).isNull();
	}

	@Test
	void givesTheSameValueAsTheFullEvaluation() {
		Order order = new Order("o-1", new Customer("c-9"), List.of("a", "b"), true);
		Object[] args = { order, 7 };
		for (String key : List.of("#order", "#p0", "#a0", "#order.id", "#order.customer.id", "#order.tags",
				"#order.urgent", "#count", "#p1")) {
			assertThat(shortcut("byName", key).value(args)).as(key).isEqualTo(evaluate("byName", key, args));
		}
	}

	@Test
	void resolvesNamesLikeMethodBasedEvaluationContext() {
		// parameter 0 is named p1: the indexed #p1 of parameter 1 is set after it and wins
		Object[] args = { "first", "second" };
		for (String key : List.of("#p1", "#p0", "#a1", "#other")) {
			assertThat(shortcut("confusing", key).value(args)).as(key).isEqualTo(evaluate("confusing", key, args));
		}
	}

	@Test
	void leavesTheFullEvaluationWhatItCannotReadTheSameWay() {
		ArgumentKeyExpression shortcut = shortcut("byName", "#order.id");
		assertThat(shortcut.value(new Object[] { null, 1 })).isSameAs(ArgumentKeyExpression.UNRESOLVED);
		assertThat(shortcut.value(new Object[] { new Order(null, null, null, false) })).isSameAs(
				ArgumentKeyExpression.UNRESOLVED);
		assertThat(shortcut("byName", "#order.customer.id").value(new Object[] { new Order("o", null, null, false), 1 }))
			.isSameAs(ArgumentKeyExpression.UNRESOLVED);
		assertThat(shortcut("byName", "#order").value(new Object[] { null, 1 })).isNull();
	}

	@Test
	void keysAndErrorsOfAnOperationAreUnchanged() {
		LockOperation operation = this.source.getOperation(method("locked"), Service.class);
		Order order = new Order("o-1", null, List.of("x", "y"), false);
		assertThat(operation.createRequest(new Object[] { order }, new Service()).keys()).containsExactly("o-1");
		assertThatExceptionOfType(LockKeyException.class)
			.isThrownBy(() -> operation.createRequest(new Object[] { null }, new Service()))
			.withMessage("Lock key expression '#order.id' of " + Service.class.getName()
					+ ".locked(Order) could not be evaluated (EL1007E: Property or field 'id' cannot be found on "
					+ "null); pass arguments that give a non-blank key, or change the expression");
		assertThatExceptionOfType(LockKeyException.class)
			.isThrownBy(() -> operation.createRequest(new Object[] { new Order(null, null, null, false) },
					new Service()))
			.withMessage("Lock key expression '#order.id' of " + Service.class.getName()
					+ ".locked(Order) evaluated to null; pass arguments that give a non-blank key, or change the "
					+ "expression");
		LockOperation multi = this.source.getOperation(method("lockedTags"), Service.class);
		assertThat(multi.createRequest(new Object[] { order }, new Service()).keys()).containsExactly("x", "y");
		assertThatExceptionOfType(LockKeyException.class)
			.isThrownBy(() -> multi.createRequest(new Object[] { new Order("o", null, List.of(), false) },
					new Service()))
			.withMessageContaining("'#order.tags' of " + Service.class.getName() + ".lockedTags(Order) evaluated to "
					+ "an empty collection");
	}

	private ArgumentKeyExpression shortcut(String methodName, String key) {
		Method method = method(methodName);
		return this.evaluator.shortcut(this.evaluator.parse(method, Service.class, key), method);
	}

	private Object evaluate(String methodName, String key, Object[] args) {
		Method method = method(methodName);
		Expression expression = this.evaluator.parse(method, Service.class, key);
		return this.evaluator.evaluate(expression, method, args, new Service(), Service.class);
	}

	private static Method method(String name) {
		for (Method method : ReflectionUtils.getDeclaredMethods(Service.class)) {
			if (method.getName().equals(name)) {
				return method;
			}
		}
		throw new IllegalArgumentException(name);
	}

	record Customer(String id) {
	}

	record Order(String id, Customer customer, List<String> tags, boolean urgent) {

		public boolean isUrgent() {
			return this.urgent;
		}

	}

	static class Service {

		void byName(Order order, int count) {
		}

		void confusing(String p1, String other) {
		}

		@DistributedLock(key = "#order.id")
		public void locked(Order order) {
		}

		@DistributedLock(key = "#order.tags")
		public void lockedTags(Order order) {
		}

	}

}
