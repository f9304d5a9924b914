package dev.zklock.metrics;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The {@link ObservationConvention} of the {@value LockObservations#OBSERVATION_NAME}
 * observation. Declare a bean of this type to rename or add key values; extending
 * {@link DefaultLockObservationConvention} keeps the default ones.
 */
public interface LockObservationConvention extends ObservationConvention<LockObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LockObservationContext;
	}

}
