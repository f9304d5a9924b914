package dev.zklock.metrics;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/**
 * The default {@link LockObservationConvention}: the observation is named
 * {@value LockObservations#OBSERVATION_NAME}, its contextual name is
 * {@code zk.lock <name>}, and its low cardinality keys are {@value #NAME},
 * {@value #MODE} and, once known, {@value #OUTCOME}. Lock keys are never added:
 * their number is unbounded.
 */
public class DefaultLockObservationConvention implements LockObservationConvention {

	/**
	 * Key of the lock name.
	 */
	public static final String NAME = "zk.lock.name";

	/**
	 * Key of the lock mode, in lower case.
	 */
	public static final String MODE = "zk.lock.mode";

	/**
	 * Key of the outcome ({@link LockOutcome#tag()}), present once the wait is over.
	 */
	public static final String OUTCOME = "zk.lock.outcome";

	/**
	 * A shared instance.
	 */
	public static final DefaultLockObservationConvention INSTANCE = new DefaultLockObservationConvention();

	@Override
	public String getName() {
		return LockObservations.OBSERVATION_NAME;
	}

	@Override
	public String getContextualName(LockObservationContext context) {
		return "zk.lock " + context.getRequest().name();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
		KeyValues keyValues = KeyValues.of(KeyValue.of(NAME, context.getRequest().name()),
				KeyValue.of(MODE, LockMetrics.tag(context.getRequest().mode())));
		LockOutcome outcome = context.getOutcome();
		return (outcome != null) ? keyValues.and(OUTCOME, outcome.tag()) : keyValues;
	}

}
