package dev.zklock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.zklock.annotation.DistributedLock;

/**
 * Finds the {@link DistributedLock} declaration that applies to a method of a
 * target class (on the method, else on the type for public methods), checks it
 * and caches the resulting {@link LockOperation} per method and target class.
 */
public class LockOperationSource {

	private static final Object NO_OPERATION = new Object();

	private final Map<MethodClassKey, Object> operations = new ConcurrentHashMap<>(256);

	private final LockOperationFactory factory;

	/**
	 * Create a new source.
	 * @param propertyResolver resolves {@code ${...}} placeholders in timeouts
	 * @param beanFactory resolves {@code @bean} references in key expressions and
	 * checks they exist; may be {@code null}
	 */
	public LockOperationSource(PropertyResolver propertyResolver, @Nullable BeanFactory beanFactory) {
		this.factory = new LockOperationFactory(propertyResolver, beanFactory);
	}

	/**
	 * Whether the class may carry {@link DistributedLock} at all.
	 * @param targetClass the class
	 * @return {@code false} when no method of the class can be locked
	 */
	public boolean isCandidateClass(Class<?> targetClass) {
		return AnnotationUtils.isCandidateClass(targetClass, DistributedLock.class);
	}

	/**
	 * The lock operation for the method, computed and checked on the first request
	 * and cached.
	 * @param method the method, possibly declared by an interface
	 * @param targetClass the class of the target bean, or {@code null}
	 * @return the operation, or {@code null} when the method is not locked
	 * @throws InvalidLockDeclarationException when the declaration cannot work
	 */
	public @Nullable LockOperation getOperation(Method method, @Nullable Class<?> targetClass) {
		MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
		Object cached = this.operations.get(cacheKey);
		if (cached == null) {
			LockOperation operation = computeOperation(method, targetClass);
			Object value = (operation != null) ? operation : NO_OPERATION;
			Object previous = this.operations.putIfAbsent(cacheKey, value);
			cached = (previous != null) ? previous : value;
		}
		return (cached != NO_OPERATION) ? (LockOperation) cached : null;
	}

	private @Nullable LockOperation computeOperation(Method method, @Nullable Class<?> targetClass) {
		Class<?> userClass = ClassUtils.getUserClass((targetClass != null) ? targetClass : method.getDeclaringClass());
		Method specificMethod = AopUtils.getMostSpecificMethod(method, userClass);
		if (Modifier.isStatic(specificMethod.getModifiers()) || specificMethod.isBridge()) {
			return null;
		}
		DistributedLock annotation = findAnnotation(method, specificMethod, userClass);
		return (annotation != null) ? this.factory.create(specificMethod, userClass, annotation) : null;
	}

	private @Nullable DistributedLock findAnnotation(Method method, Method specificMethod, Class<?> userClass) {
		DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specificMethod, DistributedLock.class);
		if (annotation == null && specificMethod != method) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		}
		if (annotation == null && Modifier.isPublic(specificMethod.getModifiers())
				&& !ReflectionUtils.isObjectMethod(specificMethod)) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(userClass, DistributedLock.class);
		}
		return annotation;
	}

}
