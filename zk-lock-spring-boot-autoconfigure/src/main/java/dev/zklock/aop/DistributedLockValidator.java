package dev.zklock.aop;

import java.lang.reflect.Method;

/**
 * Checks every {@link dev.zklock.annotation.DistributedLock} declaration of each
 * bean when the bean is created, so that a bad key expression, timeout, fallback
 * method or return type stops the application at startup instead of failing on
 * the first call. The checked operations stay cached for the calls.
 */
public class DistributedLockValidator extends AnnotatedMethodValidator {

	private final LockOperationSource operationSource;

	/**
	 * Create a new validator.
	 * @param operationSource resolves, checks and caches the lock operations
	 */
	public DistributedLockValidator(LockOperationSource operationSource) {
		super("@DistributedLock");
		this.operationSource = operationSource;
	}

	@Override
	protected boolean isCandidateClass(Class<?> targetClass) {
		return this.operationSource.isCandidateClass(targetClass);
	}

	@Override
	protected void check(Method method, Class<?> targetClass) {
		this.operationSource.getOperation(method, targetClass);
	}

}
