package dev.zklock.core;

import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LeadershipListener;
import dev.zklock.LeadershipRevocationReason;

/**
 * Logs the candidacies' changes, stamps a new leader's node and tells the
 * election's {@link LeadershipListener}; hands a failed join back to the election,
 * which decides whether to try again.
 */
final class LeadershipChanges implements RoleCandidacy.Listener {

	private static final Logger logger = LoggerFactory.getLogger(LeadershipChanges.class);

	private final LeadershipListener listener;

	private final BiConsumer<RoleCandidacy, @Nullable Throwable> retry;

	private final LeaderNodeStamp stamp;

	LeadershipChanges(LeadershipListener listener, BiConsumer<RoleCandidacy, @Nullable Throwable> retry,
			LeaderNodeStamp stamp) {
		this.listener = listener;
		this.retry = retry;
		this.stamp = stamp;
	}

	@Override
	public void granted(LeadershipTerm term) {
		logger.info("Leading role '{}' (lock '{}' key '{}') with fencing token {}", term.role(), RoleElection.LOCK_NAME,
				term.role(), term.fencingToken());
		this.stamp.stamp(term);
		this.listener.granted(term.role(), term.fencingToken(), term.since());
	}

	@Override
	public void revoked(LeadershipTerm term, LeadershipRevocationReason reason) {
		if (reason == LeadershipRevocationReason.YIELDED || reason == LeadershipRevocationReason.SHUTDOWN) {
			logger.info("No longer leading role '{}' ({}); its fencing token was {}", term.role(), reason,
					term.fencingToken());
		}
		else {
			logger.warn("Lost the leadership of role '{}' (lock '{}' key '{}', {}): another instance may lead now; "
					+ "its fencing token was {}", term.role(), RoleElection.LOCK_NAME, term.role(), reason,
					term.fencingToken());
		}
		this.listener.revoked(term.role(), term.fencingToken(), reason);
	}

	@Override
	public void joinFailed(RoleCandidacy candidacy, @Nullable Throwable failure) {
		this.retry.accept(candidacy, failure);
	}

}
