package dev.zklock.leader;

import java.lang.reflect.Method;

import dev.zklock.aop.AnnotatedMethodValidator;

/**
 * Checks the {@link dev.zklock.annotation.Leader} methods of each bean when the
 * bean is created, so that a bad role name, return type or combination stops the
 * application at startup, and declares their roles and health groups, so that the
 * roles are joined when the application starts rather than on the first call.
 */
public class LeaderDeclarationValidator extends AnnotatedMethodValidator {

	private final LeaderMethods leaderMethods;

	private final LeaderRoles roles;

	/**
	 * Create a new validator.
	 * @param leaderMethods finds, checks and caches the declarations
	 * @param roles where the roles found are declared
	 */
	public LeaderDeclarationValidator(LeaderMethods leaderMethods, LeaderRoles roles) {
		super("@Leader");
		this.leaderMethods = leaderMethods;
		this.roles = roles;
	}

	@Override
	protected boolean isCandidateClass(Class<?> targetClass) {
		return this.leaderMethods.isCandidateClass(targetClass);
	}

	@Override
	protected void check(Method method, Class<?> targetClass) {
		LeaderMethod leaderMethod = this.leaderMethods.find(method, targetClass);
		if (leaderMethod == null) {
			return;
		}
		if (leaderMethod.healthGroup().isEmpty()) {
			this.roles.add(leaderMethod.role());
		}
		else {
			this.roles.add(leaderMethod.role(), leaderMethod.healthGroup(), leaderMethod.description());
		}
	}

}
