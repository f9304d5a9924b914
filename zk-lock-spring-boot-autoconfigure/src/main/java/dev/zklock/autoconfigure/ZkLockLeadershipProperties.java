package dev.zklock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties for leadership that follows the application's state: its
 * readiness and, optionally, a health group.
 *
 * @see dev.zklock.annotation.Leader#healthGroup()
 */
@ConfigurationProperties("zk-lock.leadership")
public class ZkLockLeadershipProperties {

	/**
	 * Whether this instance competes for roles only while the application's readiness
	 * is ACCEPTING_TRAFFIC: it joins once Spring Boot reports the application ready,
	 * gives its roles up on REFUSING_TRAFFIC (a leader once its running @Leader
	 * methods return) and joins again, at the back, when readiness returns. Applies
	 * where Spring Boot's ApplicationAvailability bean is present; set to true
	 * without it, startup fails.
	 */
	private boolean followReadiness = true;

	/**
	 * Name of a health group that roles follow unless their @Leader methods name
	 * their own (healthGroup): while the group is DOWN or OUT_OF_SERVICE for
	 * yield-after, this instance gives those roles up and stands aside until the group
	 * is UP again. The group must exist (management.endpoint.health.group.NAME.include,
	 * or liveness and readiness); needs the health endpoint. When not set, roles follow
	 * no group.
	 */
	private @Nullable String healthGroup;

	/**
	 * How long a followed health group must stay DOWN or OUT_OF_SERVICE before this
	 * instance gives up the roles that follow it, so that one failed probe does not
	 * move leadership. Groups are read every tenth of it, between every 100ms and
	 * every second.
	 */
	private Duration yieldAfter = Duration.ofSeconds(10);

	public boolean isFollowReadiness() {
		return this.followReadiness;
	}

	public void setFollowReadiness(boolean followReadiness) {
		this.followReadiness = followReadiness;
	}

	public @Nullable String getHealthGroup() {
		return this.healthGroup;
	}

	public void setHealthGroup(@Nullable String healthGroup) {
		this.healthGroup = healthGroup;
	}

	public Duration getYieldAfter() {
		return this.yieldAfter;
	}

	public void setYieldAfter(Duration yieldAfter) {
		this.yieldAfter = yieldAfter;
	}

}
