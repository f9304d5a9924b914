package dev.zklock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method while holding a ZooKeeper lock, so that only one
 * holder in the whole cluster (or {@link #permits()} of them) runs it for the same
 * key at a time. On a type, it covers every public method of that type.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface DistributedLock {

	/**
	 * SpEL expression for the lock key, evaluated against the method's arguments
	 * ({@code #order.id}, {@code #p0}, {@code #a0}), {@code #root.method},
	 * {@code #root.args}, {@code #root.target} and bean references ({@code @bean}).
	 * A Collection or array result locks all its elements together. Empty means one
	 * lock for the method.
	 * @return the key expression
	 */
	String key() default "";

	/**
	 * Static lock name; defaults to {@code SimpleClassName.methodName}. Metrics are
	 * tagged with the name, never with the key.
	 * @return the lock name
	 */
	String name() default "";

	/**
	 * How the lock is shared.
	 * @return the lock mode
	 */
	LockMode mode() default LockMode.MUTEX;

	/**
	 * Number of concurrent holders allowed in {@link LockMode#SEMAPHORE} mode.
	 * @return the number of permits
	 */
	int permits() default 1;

	/**
	 * Longest wait for the lock: {@code "5s"}, {@code "250ms"}, {@code "PT1M"} or a
	 * {@code ${placeholder}} resolving to one. Empty means
	 * {@code zk-lock.default-timeout}; {@code "0"} means try once without waiting.
	 * @return the timeout
	 */
	String timeout() default "";

	/**
	 * Longest hold: {@code "10m"}, {@code "30s"} or a {@code ${placeholder}}. After it
	 * zk-lock deletes the lock node, so that the lock passes on, and the hold is lost
	 * with {@link dev.zklock.LockLossReason#MAX_HOLD_EXCEEDED}: a
	 * {@link dev.zklock.LockLostEvent} is published and {@code interrupt-on-loss}
	 * applies. The method goes on unless interrupted, so fence its writes. Empty means
	 * {@code zk-lock.max-hold} (unset: no cap). It must not be shorter than the
	 * {@link #timeout()}, nor than one tick of zk-lock's clock
	 * ({@code zk-lock.pause-detection.tick}).
	 * @return the cap
	 */
	String maxHold() default "";

	/**
	 * Shortest hold: {@code "30s"}, {@code "900ms"} or a {@code ${placeholder}}. When
	 * the method returns sooner, the lock stays held (its node kept) until this much
	 * time has passed since the grant, so that the same job fired a little later on
	 * another instance finds it taken and skips. Measured on this process's own
	 * monotonic clock; no clock of another machine is compared, so clock skew does
	 * not matter. The hold still ends with the ZooKeeper session (a crash, or the
	 * client closing at shutdown). Empty or {@code "0"} means none. It must not be
	 * longer than {@link #maxHold()} (or {@code zk-lock.max-hold}).
	 * @return the shortest hold
	 */
	String minHold() default "";

	/**
	 * Local hand-off for a hot key: this process's callers of one key queue in the
	 * JVM behind one ZooKeeper node of the process (a tenure), and a release passes
	 * the key to the next local caller without a ZooKeeper operation. Once another
	 * process waits, a tenure ends after {@code zk-lock.local-handoff.max-passes}
	 * passes or {@code zk-lock.local-handoff.max-time}, so strict FIFO across
	 * processes gives way to bounded batches. Every holder of one tenure gets the
	 * same fencing token. For {@link LockMode#MUTEX}, {@link LockMode#READ} and
	 * {@link LockMode#WRITE}; refused at startup with {@link LockMode#SEMAPHORE}, and
	 * ignored for a call whose key expression yields several keys, which takes nodes
	 * of its own.
	 * @return whether to hand the lock off locally
	 */
	boolean localHandoff() default false;

	/**
	 * What to do when the lock is not acquired in time and no
	 * {@link #fallbackMethod()} is given.
	 * @return the timeout action
	 */
	OnTimeout onTimeout() default OnTimeout.THROW;

	/**
	 * Name of a method of the same bean, with the same parameters and optionally a
	 * trailing {@link dev.zklock.LockException}, that is called instead when the lock
	 * is not acquired.
	 * @return the fallback method name
	 */
	String fallbackMethod() default "";

}
