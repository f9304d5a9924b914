package dev.zklock.leader;

import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.support.AopUtils;

import dev.zklock.FencingToken;
import dev.zklock.LockContextHolder;
import dev.zklock.core.LeadershipTerm;

/**
 * Runs {@link dev.zklock.annotation.Leader} methods only while this instance leads
 * their role, and skips them otherwise. While the method runs, the leadership is
 * the thread's {@link dev.zklock.LockContext}, a {@link FencingToken} parameter
 * receives its token, and the thread is interrupted when the leadership is lost
 * if {@code zk-lock.interrupt-on-loss} is set. A Kotlin suspend function finds
 * the leadership in its Reactor context instead (see {@link LeaderCoroutines}).
 */
public class LeaderInterceptor implements MethodInterceptor {

	private static final Logger logger = LoggerFactory.getLogger(LeaderInterceptor.class);

	private final LeaderMethods leaderMethods;

	private final Supplier<@Nullable CuratorLeaderElection> election;

	/**
	 * Create a new interceptor.
	 * @param leaderMethods finds the methods' declarations
	 * @param election supplies the election, resolved on first use; {@code null}
	 * when there is none, and every call is skipped
	 */
	public LeaderInterceptor(LeaderMethods leaderMethods, Supplier<@Nullable CuratorLeaderElection> election) {
		this.leaderMethods = leaderMethods;
		this.election = election;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		LeaderMethod method = this.leaderMethods.find(invocation.getMethod(),
				(target != null) ? AopUtils.getTargetClass(target) : null);
		if (method == null) {
			return invocation.proceed();
		}
		CuratorLeaderElection election = this.election.get();
		LeadershipTerm term = (election != null) ? election.term(method.role()) : null;
		// a yield deletes the node once the methods that entered have returned: none may enter after it
		if (term == null || !term.isHeld() || (!method.suspending() && !term.enter())) {
			if (logger.isDebugEnabled()) {
				logger.debug("Not the leader of role '{}' (lock '{}' key '{}'); skipped {}", method.role(),
						CuratorLeaderElection.LOCK_NAME, method.role(), method.description());
			}
			return method.skipValue().get();
		}
		if (method.fencingTokenParameter() >= 0) {
			invocation.getArguments()[method.fencingTokenParameter()] = new FencingToken(term.fencingToken());
		}
		if (method.suspending()) {
			// proceed() only creates the cold Mono; its body runs once Spring's proxy awaits it
			return LeaderCoroutines.withinTerm(invocation.proceed(), term);
		}
		LockContextHolder.push(term);
		try {
			return invocation.proceed();
		}
		finally {
			LockContextHolder.remove(term);
			term.exit();
		}
	}

}
