package dev.zklock.metrics;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.context.event.EventListener;

import dev.zklock.LeaderElection;
import dev.zklock.LeadershipGrantedEvent;
import dev.zklock.LeadershipRevokedEvent;

/**
 * Micrometer meters of leadership, tagged by {@code role}: {@value #LEADER}, a
 * gauge that is 1 while this instance leads the role for sure and 0 otherwise, and
 * {@value #CHANGES}, a counter of this instance's grants and revocations, also
 * tagged {@code change} ({@code granted} or {@code revoked}). A gauge is
 * registered for each of the election's roles once the context is refreshed, and
 * for any role an event names.
 */
public class LeadershipMetrics {

	/**
	 * Whether this instance leads a role: 1 or 0.
	 */
	public static final String LEADER = "zk.lock.leader";

	/**
	 * Leadership changes of this instance.
	 */
	public static final String CHANGES = "zk.lock.leader.changes";

	private final MeterRegistry registry;

	private final LeaderElection election;

	private final Map<String, Boolean> gauges = new ConcurrentHashMap<>();

	/**
	 * Create the meters.
	 * @param registry the registry
	 * @param election this instance's election
	 */
	public LeadershipMetrics(MeterRegistry registry, LeaderElection election) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.election = Objects.requireNonNull(election, "election must not be null");
	}

	/**
	 * Register the gauges of the roles known once the beans are created.
	 * @param event the event
	 */
	@EventListener
	public void refreshed(ContextRefreshedEvent event) {
		this.election.roles().forEach(this::gauge);
	}

	/**
	 * Count a grant.
	 * @param event the event
	 */
	@EventListener
	public void granted(LeadershipGrantedEvent event) {
		count(event.getRole(), "granted");
	}

	/**
	 * Count a revocation.
	 * @param event the event
	 */
	@EventListener
	public void revoked(LeadershipRevokedEvent event) {
		count(event.getRole(), "revoked");
	}

	private void count(String role, String change) {
		gauge(role);
		Counter.builder(CHANGES)
			.description("Leadership changes of this instance")
			.tag("role", role)
			.tag("change", change)
			.register(this.registry)
			.increment();
	}

	private void gauge(String role) {
		if (this.gauges.putIfAbsent(role, Boolean.TRUE) == null) {
			Gauge.builder(LEADER, this.election, (election) -> election.isLeader(role) ? 1 : 0)
				.description("Whether this instance leads the role (1) or not (0)")
				.tag("role", role)
				.strongReference(true)
				.register(this.registry);
		}
	}

}
