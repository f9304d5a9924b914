package dev.zklock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ReflectionUtils;

/**
 * Checks the annotated methods of each bean class once, when its first bean is
 * created, so that a declaration that cannot work stops the application at
 * startup; every problem of a class is reported in one
 * {@link InvalidLockDeclarationException}.
 */
public abstract class AnnotatedMethodValidator implements BeanPostProcessor {

	private final String annotation;

	private final Map<Class<?>, Boolean> validatedClasses = new ConcurrentHashMap<>(256);

	/**
	 * Create a new validator.
	 * @param annotation the annotation checked, as messages name it, such as
	 * {@code @DistributedLock}
	 */
	protected AnnotatedMethodValidator(String annotation) {
		this.annotation = annotation;
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		// Ahead of the auto-proxy creator, which would stop at the first invalid method
		validateOnce(AopProxyUtils.ultimateTargetClass(bean));
		return bean;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		// Objects made by a FactoryBean only pass through here
		validateOnce(AopProxyUtils.ultimateTargetClass(bean));
		return bean;
	}

	private void validateOnce(Class<?> targetClass) {
		if (!this.validatedClasses.containsKey(targetClass)) {
			validate(targetClass);
			this.validatedClasses.put(targetClass, Boolean.TRUE);
		}
	}

	/**
	 * Check the declarations of all methods of the class.
	 * @param targetClass the bean class
	 * @throws InvalidLockDeclarationException naming every invalid declaration
	 */
	public void validate(Class<?> targetClass) {
		if (!isCandidateClass(targetClass)) {
			return;
		}
		List<String> problems = new ArrayList<>();
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(targetClass, ReflectionUtils.USER_DECLARED_METHODS)) {
			if (Modifier.isStatic(method.getModifiers()) || method.isBridge()) {
				continue;
			}
			try {
				check(method, targetClass);
			}
			catch (InvalidLockDeclarationException ex) {
				problems.add(ex.getMessage());
			}
		}
		if (problems.size() == 1) {
			throw new InvalidLockDeclarationException(problems.get(0));
		}
		if (!problems.isEmpty()) {
			throw new InvalidLockDeclarationException(problems.size() + " invalid " + this.annotation
					+ " declarations in " + targetClass.getName() + ":\n - " + String.join("\n - ", problems));
		}
	}

	/**
	 * Whether any method of the class may carry the annotation.
	 * @param targetClass the bean class
	 * @return whether to look at its methods
	 */
	protected abstract boolean isCandidateClass(Class<?> targetClass);

	/**
	 * Check one method, doing nothing when it has no declaration.
	 * @param method the method
	 * @param targetClass the bean class
	 * @throws InvalidLockDeclarationException when its declaration cannot work
	 */
	protected abstract void check(Method method, Class<?> targetClass);

}
