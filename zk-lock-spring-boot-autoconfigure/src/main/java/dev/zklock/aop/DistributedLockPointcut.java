package dev.zklock.aop;

import java.lang.reflect.Method;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Matches the methods that {@link LockOperationSource} finds a lock operation for.
 */
final class DistributedLockPointcut extends StaticMethodMatcherPointcut {

	private final LockOperationSource operationSource;

	DistributedLockPointcut(LockOperationSource operationSource) {
		this.operationSource = operationSource;
		setClassFilter(new CandidateClassFilter());
	}

	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		return this.operationSource.getOperation(method, targetClass) != null;
	}

	private final class CandidateClassFilter implements ClassFilter {

		@Override
		public boolean matches(Class<?> clazz) {
			return DistributedLockPointcut.this.operationSource.isCandidateClass(clazz);
		}

	}

}
