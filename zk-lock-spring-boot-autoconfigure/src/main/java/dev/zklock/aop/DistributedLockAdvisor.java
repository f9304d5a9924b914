package dev.zklock.aop;

import org.springframework.aop.support.DefaultPointcutAdvisor;

/**
 * Applies {@link DistributedLockInterceptor} to every
 * {@link dev.zklock.annotation.DistributedLock} method. Its order decides where
 * the lock sits among other advice: by default ahead of the transaction advisor,
 * so that the lock is released only after the transaction has completed.
 * <p>
 * A replacement bean should be declared with
 * {@code @Role(BeanDefinition.ROLE_INFRASTRUCTURE)}: without AspectJ, the
 * auto-proxy creator applies infrastructure advisors only.
 */
public class DistributedLockAdvisor extends DefaultPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new advisor.
	 * @param operationSource decides which methods are locked
	 * @param interceptor the advice
	 * @param order the advisor order; lower values run first and release last
	 */
	public DistributedLockAdvisor(LockOperationSource operationSource, DistributedLockInterceptor interceptor,
			int order) {
		super(new DistributedLockPointcut(operationSource), interceptor);
		setOrder(order);
	}

}
