package dev.zklock.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import dev.zklock.LeaderElection;

/**
 * {@link HealthIndicator} for leadership: always UP, as standing by is healthy,
 * with the roles this instance takes part in and those it leads for sure right
 * now as details. Reads local state only.
 */
public class LeadershipHealthIndicator implements HealthIndicator {

	private final LeaderElection election;

	/**
	 * Create a new indicator.
	 * @param election this instance's election
	 */
	public LeadershipHealthIndicator(LeaderElection election) {
		this.election = Objects.requireNonNull(election, "election must not be null");
	}

	@Override
	public Health health() {
		Set<String> roles = this.election.roles();
		List<String> leading = new ArrayList<>();
		for (String role : roles) {
			if (this.election.isLeader(role)) {
				leading.add(role);
			}
		}
		return Health.up().withDetail("roles", roles).withDetail("leading", leading).build();
	}

}
