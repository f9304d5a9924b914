package dev.zklock.leader;

import java.util.Optional;

import dev.zklock.FencingToken;
import dev.zklock.annotation.Leader;

/**
 * A {@code @Leader} method whose role {@value #ROLE} follows health group
 * {@value #HEALTH_GROUP}, whatever {@code zk-lock.leadership.health-group} says.
 */
public class BillingJob {

	static final String ROLE = "billing";

	static final String HEALTH_GROUP = "jobs";

	@Leader(value = ROLE, healthGroup = HEALTH_GROUP)
	public Optional<Long> bill(FencingToken token) {
		return Optional.of(token.value());
	}

}
