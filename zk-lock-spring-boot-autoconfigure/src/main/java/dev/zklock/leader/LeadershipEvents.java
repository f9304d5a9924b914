package dev.zklock.leader;

import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.ApplicationEventPublisher;

import dev.zklock.LeadershipGrantedEvent;
import dev.zklock.LeadershipRevocationReason;
import dev.zklock.LeadershipRevokedEvent;

/**
 * Logs the candidacies' changes and publishes them as application events, after
 * stamping a new leader's node; hands a failed join back to the election, which decides
 * whether to try again.
 */
final class LeadershipEvents implements RoleCandidacy.Listener {

	private static final Logger logger = LoggerFactory.getLogger(LeadershipEvents.class);

	private final Object source;

	private final ApplicationEventPublisher publisher;

	private final BiConsumer<RoleCandidacy, @Nullable Throwable> retry;

	private final LeaderNodeStamp stamp;

	LeadershipEvents(Object source, ApplicationEventPublisher publisher,
			BiConsumer<RoleCandidacy, @Nullable Throwable> retry, LeaderNodeStamp stamp) {
		this.source = source;
		this.publisher = publisher;
		this.retry = retry;
		this.stamp = stamp;
	}

	@Override
	public void granted(LeadershipTerm term) {
		logger.info("Leading role '{}' (lock '{}' key '{}') with fencing token {}", term.role(),
				CuratorLeaderElection.LOCK_NAME, term.role(), term.fencingToken());
		this.stamp.stamp(term);
		this.publisher
			.publishEvent(new LeadershipGrantedEvent(this.source, term.role(), term.fencingToken(), term.since()));
	}

	@Override
	public void revoked(LeadershipTerm term, LeadershipRevocationReason reason) {
		if (reason == LeadershipRevocationReason.YIELDED || reason == LeadershipRevocationReason.SHUTDOWN) {
			logger.info("No longer leading role '{}' ({}); its fencing token was {}", term.role(), reason,
					term.fencingToken());
		}
		else {
			logger.warn("Lost the leadership of role '{}' (lock '{}' key '{}', {}): another instance may lead now; "
					+ "its fencing token was {}", term.role(), CuratorLeaderElection.LOCK_NAME, term.role(), reason,
					term.fencingToken());
		}
		this.publisher.publishEvent(new LeadershipRevokedEvent(this.source, term.role(), term.fencingToken(), reason));
	}

	@Override
	public void joinFailed(RoleCandidacy candidacy, @Nullable Throwable failure) {
		this.retry.accept(candidacy, failure);
	}

}
