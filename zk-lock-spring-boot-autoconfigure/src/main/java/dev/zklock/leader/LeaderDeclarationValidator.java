package dev.zklock.leader;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ReflectionUtils;

import dev.zklock.aop.InvalidLockDeclarationException;

/**
 * Checks the {@link dev.zklock.annotation.Leader} methods of each bean when the
 * bean is created, so that a bad role name, return type or combination stops the
 * application at startup, and declares their roles, so that they are joined when
 * the application starts rather than on the first call.
 */
public class LeaderDeclarationValidator implements BeanPostProcessor {

	private final LeaderMethods leaderMethods;

	private final LeaderRoles roles;

	private final Map<Class<?>, Boolean> validatedClasses = new ConcurrentHashMap<>(256);

	/**
	 * Create a new validator.
	 * @param leaderMethods finds, checks and caches the declarations
	 * @param roles where the roles found are declared
	 */
	public LeaderDeclarationValidator(LeaderMethods leaderMethods, LeaderRoles roles) {
		this.leaderMethods = leaderMethods;
		this.roles = roles;
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		validateOnce(AopProxyUtils.ultimateTargetClass(bean));
		return bean;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		validateOnce(AopProxyUtils.ultimateTargetClass(bean));
		return bean;
	}

	private void validateOnce(Class<?> targetClass) {
		if (this.validatedClasses.putIfAbsent(targetClass, Boolean.TRUE) == null) {
			validate(targetClass);
		}
	}

	/**
	 * Check the declarations of all methods of the class and declare their roles.
	 * @param targetClass the bean class
	 * @throws InvalidLockDeclarationException naming every invalid declaration
	 */
	public void validate(Class<?> targetClass) {
		if (!this.leaderMethods.isCandidateClass(targetClass)) {
			return;
		}
		List<String> problems = new ArrayList<>();
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(targetClass,
				ReflectionUtils.USER_DECLARED_METHODS)) {
			if (Modifier.isStatic(method.getModifiers()) || method.isBridge()) {
				continue;
			}
			try {
				LeaderMethod leaderMethod = this.leaderMethods.find(method, targetClass);
				if (leaderMethod != null) {
					this.roles.add(leaderMethod.role());
				}
			}
			catch (InvalidLockDeclarationException ex) {
				problems.add(ex.getMessage());
			}
		}
		if (problems.size() == 1) {
			throw new InvalidLockDeclarationException(problems.get(0));
		}
		if (!problems.isEmpty()) {
			throw new InvalidLockDeclarationException(problems.size() + " invalid @Leader declarations in "
					+ targetClass.getName() + ":\n - " + String.join("\n - ", problems));
		}
	}

}
