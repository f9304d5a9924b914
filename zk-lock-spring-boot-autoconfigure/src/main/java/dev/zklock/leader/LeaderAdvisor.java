package dev.zklock.leader;

import java.lang.reflect.Method;

import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Applies {@link LeaderInterceptor} to every {@link dev.zklock.annotation.Leader}
 * method. A replacement bean should be declared with
 * {@code @Role(BeanDefinition.ROLE_INFRASTRUCTURE)}, as the auto-proxy creator
 * applies infrastructure advisors only.
 */
public class LeaderAdvisor extends DefaultPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new advisor.
	 * @param leaderMethods decides which methods are {@code @Leader} methods
	 * @param interceptor the advice
	 * @param order the advisor order; lower values run first
	 */
	public LeaderAdvisor(LeaderMethods leaderMethods, LeaderInterceptor interceptor, int order) {
		super(new LeaderPointcut(leaderMethods), interceptor);
		setOrder(order);
	}

	private static final class LeaderPointcut extends StaticMethodMatcherPointcut {

		private final LeaderMethods leaderMethods;

		LeaderPointcut(LeaderMethods leaderMethods) {
			this.leaderMethods = leaderMethods;
			setClassFilter(leaderMethods::isCandidateClass);
		}

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return this.leaderMethods.find(method, targetClass) != null;
		}

	}

}
