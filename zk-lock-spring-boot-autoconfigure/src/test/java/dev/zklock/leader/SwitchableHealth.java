package dev.zklock.leader;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * A health indicator whose status a test sets, standing for a database the jobs
 * need.
 */
public class SwitchableHealth implements HealthIndicator {

	private volatile Status status = Status.UP;

	public void set(Status status) {
		this.status = status;
	}

	@Override
	public Health health() {
		return Health.status(this.status).build();
	}

}
