package dev.zklock.aop;

import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.javapoet.ClassName;

import dev.zklock.LockException;
import dev.zklock.annotation.DistributedLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints {@link DistributedLockHintsAotProcessor} registers for a bean with locked
 * methods, checked with {@link RuntimeHintsPredicates}, and none for a bean without.
 */
class DistributedLockHintsAotProcessorTests {

	private final DistributedLockHintsAotProcessor processor = new DistributedLockHintsAotProcessor();

	@Test
	void registersLockedMethodsTheirFallbacksAndTheTypesKeyExpressionsRead() throws Exception {
		RuntimeHints hints = process(OrderService.class);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(OrderService.class.getDeclaredMethod("ship", Order.class))).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(OrderService.class.getDeclaredMethod("notShipped", Order.class, LockException.class)))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(Order.class)
			.withMemberCategories(MemberCategory.INVOKE_PUBLIC_METHODS, MemberCategory.ACCESS_PUBLIC_FIELDS))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class.getMethod("id"))).accepts(hints);
		// an unlocked method is left alone, and so is a JDK parameter type
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(OrderService.class.getDeclaredMethod("unlocked", Order.class))).rejects(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(String.class)).rejects(hints);
	}

	@Test
	void aClassLevelAnnotationCoversThePublicMethods() throws Exception {
		RuntimeHints hints = process(LockedEverywhere.class);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(LockedEverywhere.class.getDeclaredMethod("run", String.class))).accepts(hints);
	}

	@Test
	void contributesNothingForABeanWithoutLockedMethods() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("plain", new RootBeanDefinition(Order.class));
		assertThat(this.processor.processAheadOfTime(RegisteredBean.of(beanFactory, "plain"))).isNull();
	}

	@Test
	void isRegisteredInAotFactories() {
		assertThat(AotServices.factories().load(BeanRegistrationAotProcessor.class))
			.anyMatch(DistributedLockHintsAotProcessor.class::isInstance);
	}

	private RuntimeHints process(Class<?> beanClass) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
		BeanRegistrationAotContribution contribution = this.processor
			.processAheadOfTime(RegisteredBean.of(beanFactory, "bean"));
		assertThat(contribution).isNotNull();
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("com.example", "Test")), new InMemoryGeneratedFiles());
		contribution.applyTo(generationContext, null);
		return generationContext.getRuntimeHints();
	}

	record Order(String id) {
	}

	static class OrderService {

		@DistributedLock(name = "orders", key = "#order.id", fallbackMethod = "notShipped")
		public String ship(Order order) {
			return "shipped " + order.id();
		}

		String notShipped(Order order, LockException cause) {
			return "not shipped";
		}

		public String unlocked(Order order) {
			return order.id();
		}

	}

	@DistributedLock(name = "everything")
	static class LockedEverywhere {

		public String run(String name) {
			return name;
		}

	}

}
