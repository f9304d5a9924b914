package dev.zklock.leader;

import java.time.Instant;

import org.springframework.context.ApplicationEventPublisher;

import dev.zklock.LeadershipGrantedEvent;
import dev.zklock.LeadershipListener;
import dev.zklock.LeadershipRevocationReason;
import dev.zklock.LeadershipRevokedEvent;

/**
 * Publishes the core election's grants and revocations as application events, in
 * the order the election tells them.
 */
final class LeadershipEvents implements LeadershipListener {

	private final Object source;

	private final ApplicationEventPublisher publisher;

	LeadershipEvents(Object source, ApplicationEventPublisher publisher) {
		this.source = source;
		this.publisher = publisher;
	}

	@Override
	public void granted(String role, long fencingToken, Instant since) {
		this.publisher.publishEvent(new LeadershipGrantedEvent(this.source, role, fencingToken, since));
	}

	@Override
	public void revoked(String role, long fencingToken, LeadershipRevocationReason reason) {
		this.publisher.publishEvent(new LeadershipRevokedEvent(this.source, role, fencingToken, reason));
	}

}
