package dev.zklock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

import dev.zklock.annotation.DistributedLock;

/**
 * Registers, for each bean with {@link DistributedLock @DistributedLock} methods, the
 * reflection its locking needs in a native image: the locked methods (the advice calls
 * them reflectively), their fallback methods (called by name), and the public
 * methods and fields of the parameter types a key expression may read. Registered in
 * {@code META-INF/spring/aot.factories}.
 */
public class DistributedLockHintsAotProcessor implements BeanRegistrationAotProcessor {

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
		List<LockedMethod> locked = lockedMethods(beanClass);
		if (locked.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> register(generationContext.getRuntimeHints().reflection(), beanClass,
				locked);
	}

	private static List<LockedMethod> lockedMethods(Class<?> beanClass) {
		DistributedLock onClass = AnnotatedElementUtils.findMergedAnnotation(beanClass, DistributedLock.class);
		List<LockedMethod> locked = new ArrayList<>();
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(beanClass, ReflectionUtils.USER_DECLARED_METHODS)) {
			DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
			// As LockOperationSource: a class-level annotation covers the public methods
			if (annotation == null && onClass != null && Modifier.isPublic(method.getModifiers())) {
				annotation = onClass;
			}
			if (annotation != null) {
				locked.add(new LockedMethod(method, annotation));
			}
		}
		return locked;
	}

	private static void register(ReflectionHints reflection, Class<?> beanClass, List<LockedMethod> locked) {
		for (LockedMethod lockedMethod : locked) {
			Method method = lockedMethod.method();
			DistributedLock annotation = lockedMethod.annotation();
			reflection.registerMethod(method, ExecutableMode.INVOKE);
			String fallback = annotation.fallbackMethod().trim();
			if (!fallback.isEmpty()) {
				for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(beanClass)) {
					if (candidate.getName().equals(fallback)) {
						reflection.registerMethod(candidate, ExecutableMode.INVOKE);
					}
				}
			}
			if (StringUtils.hasText(annotation.key())) {
				for (Class<?> parameterType : method.getParameterTypes()) {
					registerReadable(reflection, parameterType);
				}
			}
		}
	}

	private static void registerReadable(ReflectionHints reflection, Class<?> type) {
		Class<?> component = type.isArray() ? type.getComponentType() : type;
		if (!component.isPrimitive() && !component.getName().startsWith("java.")) {
			reflection.registerType(component, MemberCategory.INVOKE_PUBLIC_METHODS,
					MemberCategory.ACCESS_PUBLIC_FIELDS);
		}
	}

	private record LockedMethod(Method method, DistributedLock annotation) {
	}

}
