package dev.zklock.leader;

import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationListener;

/**
 * Has this instance compete for its roles only while the application's readiness
 * is {@link ReadinessState#ACCEPTING_TRAFFIC}: on
 * {@link ReadinessState#REFUSING_TRAFFIC} it stands aside from every role (a
 * leader yields once its running {@code @Leader} methods return), and it joins
 * again, at the back, when readiness returns. Spring Boot publishes
 * {@code ACCEPTING_TRAFFIC} once the application has started, after the
 * {@code ApplicationRunner}s and {@code ApplicationReadyEvent} listeners, so roles
 * are joined only then.
 */
public final class LeadershipReadiness implements ApplicationListener<AvailabilityChangeEvent<ReadinessState>> {

	/**
	 * The cause this instance stands aside for, as logged.
	 */
	public static final String CAUSE = "readiness not ACCEPTING_TRAFFIC";

	private final CuratorLeaderElection election;

	/**
	 * Create a new instance that follows the readiness from now on, starting with
	 * the current one.
	 * @param election the election
	 * @param availability the application's availability
	 */
	public LeadershipReadiness(CuratorLeaderElection election, ApplicationAvailability availability) {
		this.election = election;
		follow(availability.getReadinessState());
	}

	@Override
	public void onApplicationEvent(AvailabilityChangeEvent<ReadinessState> event) {
		follow(event.getState());
	}

	private void follow(ReadinessState state) {
		if (state == ReadinessState.ACCEPTING_TRAFFIC) {
			this.election.standAgain(CAUSE);
		}
		else {
			this.election.standAside(CAUSE);
		}
	}

}
