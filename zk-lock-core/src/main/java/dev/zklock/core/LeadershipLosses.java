package dev.zklock.core;

import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;

import dev.zklock.LeadershipRevocationReason;
import dev.zklock.LockLossReason;
import dev.zklock.LockInfo;

/**
 * Ends leaderships when the connection or the engine says they are gone, and has
 * the candidacies join again once the connection is back. A suspension counts
 * only when the client's error policy makes it an error (the SUSPENDED loss
 * policy); a lost session always does, and so does a lock the engine lost.
 */
final class LeadershipLosses implements ConnectionStateListener {

	private final Map<String, RoleCandidacy> candidacies;

	private final BooleanSupplier joining;

	private final Consumer<RoleCandidacy> rejoin;

	/**
	 * Create a new instance.
	 * @param candidacies the candidacies by role
	 * @param joining whether candidacies may join now
	 * @param rejoin has a candidacy join again, off the caller's thread
	 */
	LeadershipLosses(Map<String, RoleCandidacy> candidacies, BooleanSupplier joining,
			Consumer<RoleCandidacy> rejoin) {
		this.candidacies = candidacies;
		this.joining = joining;
		this.rejoin = rejoin;
	}

	@Override
	public void stateChanged(CuratorFramework client, ConnectionState newState) {
		switch (newState) {
			case SUSPENDED -> {
				if (client.getConnectionStateErrorPolicy().isErrorState(ConnectionState.SUSPENDED)) {
					dropAll(LeadershipRevocationReason.CONNECTION_SUSPENDED);
				}
			}
			case LOST -> dropAll(LeadershipRevocationReason.CONNECTION_LOST);
			case CONNECTED, RECONNECTED -> {
				if (this.joining.getAsBoolean()) {
					this.candidacies.values().forEach(RoleCandidacy::rejoin);
				}
			}
			default -> {
			}
		}
	}

	/**
	 * The engine lost a lock; when it is a role's leadership, end it and join again
	 * if connected.
	 * @param client the client
	 * @param lock the lost lock
	 * @param reason why it was lost
	 */
	void lockLost(CuratorFramework client, LockInfo lock, LockLossReason reason) {
		RoleCandidacy candidacy = RoleElection.LOCK_NAME.equals(lock.name())
				? this.candidacies.get(lock.key()) : null;
		if (candidacy == null) {
			return;
		}
		LeadershipRevocationReason revocation = switch (reason) {
			case SESSION_LOST -> LeadershipRevocationReason.CONNECTION_LOST;
			case SESSION_CHANGED -> LeadershipRevocationReason.SESSION_EXPIRED;
			// a role has no cap of its own; a node taken away is a node deleted
			case NODE_DELETED, MAX_HOLD_EXCEEDED, REVOKED -> LeadershipRevocationReason.NODE_DELETED;
			case SHUTDOWN -> LeadershipRevocationReason.SHUTDOWN;
		};
		if (candidacy.lost(lock.fencingToken(), revocation) && this.joining.getAsBoolean()
				&& client.getZookeeperClient().isConnected()) {
			this.rejoin.accept(candidacy);
		}
	}

	private void dropAll(LeadershipRevocationReason reason) {
		this.candidacies.values().forEach((candidacy) -> candidacy.drop(reason));
	}

}
