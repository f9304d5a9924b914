package dev.zklock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only while this instance leads the given role; on
 * every other instance the call is skipped and returns what
 * {@link OnTimeout#SKIP} returns (nothing, an empty {@code Optional} or
 * collection, otherwise {@code null}). Made for {@code @Scheduled} methods that
 * every instance runs but only one should act on.
 * <p>
 * The role is joined when the application starts. Inside the method,
 * {@link dev.zklock.LockContext#current()} is the leadership, with the
 * leadership's fencing token, and a {@link dev.zklock.FencingToken} parameter
 * receives that token.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Leader {

	/**
	 * The role, one ZooKeeper path segment once encoded, shared by every instance
	 * that runs the method.
	 * @return the role name
	 */
	String value();

	/**
	 * The health group this role follows instead of
	 * {@code zk-lock.leadership.health-group}: while the group is {@code DOWN} or
	 * {@code OUT_OF_SERVICE} for longer than {@code zk-lock.leadership.yield-after}, this
	 * instance gives the role up and stands aside; it joins again, at the back, once
	 * the group is {@code UP}. The group must exist, as a
	 * {@code management.endpoint.health.group.<name>} or one of Spring Boot's
	 * probes groups ({@code liveness}, {@code readiness}). Every {@code @Leader}
	 * method of a role that names a group must name the same one. Empty (the default)
	 * follows {@code zk-lock.leadership.health-group}, if set.
	 * @return the health group's name, or empty
	 */
	String healthGroup() default "";

}
