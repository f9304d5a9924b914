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
 * Checks every {@link dev.zklock.annotation.DistributedLock} declaration of each
 * bean when the bean is created, so that a bad key expression, timeout, fallback
 * method or return type stops the application at startup instead of failing on
 * the first call. The checked operations stay cached for the calls.
 */
public class DistributedLockValidator implements BeanPostProcessor {

	private final LockOperationSource operationSource;

	private final Map<Class<?>, Boolean> validatedClasses = new ConcurrentHashMap<>(256);

	/**
	 * Create a new validator.
	 * @param operationSource resolves, checks and caches the lock operations
	 */
	public DistributedLockValidator(LockOperationSource operationSource) {
		this.operationSource = operationSource;
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
		if (!this.operationSource.isCandidateClass(targetClass)) {
			return;
		}
		List<String> problems = new ArrayList<>();
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(targetClass, ReflectionUtils.USER_DECLARED_METHODS)) {
			if (Modifier.isStatic(method.getModifiers()) || method.isBridge()) {
				continue;
			}
			try {
				this.operationSource.getOperation(method, targetClass);
			}
			catch (InvalidLockDeclarationException ex) {
				problems.add(ex.getMessage());
			}
		}
		if (problems.size() == 1) {
			throw new InvalidLockDeclarationException(problems.get(0));
		}
		if (!problems.isEmpty()) {
			throw new InvalidLockDeclarationException(problems.size() + " invalid @DistributedLock declarations in "
					+ targetClass.getName() + ":\n - " + String.join("\n - ", problems));
		}
	}

}
